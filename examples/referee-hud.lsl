// referee HUD for Second Life: posts its wearer's commands to a bout's chat endpoint and tells
// the wearer the answer privately (llOwnerSay). Nothing is said in public chat, and nothing
// said on channel 0 is ever read: role-play lines stay role-play.
//
// Wear it, then either touch it for a menu (status, score, a d100 roll, help), or type a
// command on its private channel, for example:
//     /7 //roll -sides100 -dice1
//     /7 roll 2d20+1d6
//     /7 attack Pa Kur            (names need no quotes or capitals)
//     /7 spirit Ghost             (SRP: one round of spirit combat, both sides' PM after it)
//     /7 odds 2d6+3               (the exact odds of a roll; nothing is recorded)
//     /7 status
// A line is a command only when all of it is one: "/7 close call!" does nothing but answer
// "error: not a command; did you mean `close bout`?".
//
// Set BASE_URL, BOUT_ID and TOKEN below (the token is the fighter's or the referee's, from
// the bout's invite link; the referee's console can reissue a lost link). The token is a bearer
// secret: keep this script no-modify, and never paste it into chat.
// Limits respected: one short POST per line (a line is at most 1,024 bytes of UTF-8), a reply
// of at most 1,024 bytes (the service guarantees it), told in one message.
// Retries never roll twice: each line gets its own Idempotency-Key, and when Second Life gives
// up waiting (status 499, after 60 s) the HUD sends the same line once more with the same key,
// so the service answers the first result again instead of acting twice.

string BASE_URL = "https://referee.example.org";  // where `referee serve` is reachable
string BOUT_ID  = "PUT-BOUT-ID-HERE";
string TOKEN    = "PUT-TOKEN-HERE";
integer CHANNEL = 7;          // the private command channel: "/7 status"

integer command_listener;
integer menu_listener;
integer menu_channel;
key pending;
string pending_line;     // the line in flight, kept for one retry
string pending_key;      // its Idempotency-Key, the same on the retry
integer retries_left;

list MENU = ["status", "score", "roll d100", "help"];

post()
{
    pending = llHTTPRequest(BASE_URL + "/api/bouts/" + BOUT_ID + "/chat",
        [HTTP_METHOD, "POST",
         HTTP_MIMETYPE, "text/plain;charset=utf-8",
         HTTP_CUSTOM_HEADER, "Authorization", "Bearer " + TOKEN,
         HTTP_CUSTOM_HEADER, "Idempotency-Key", pending_key,
         HTTP_BODY_MAXLENGTH, 2048],
        pending_line);
}

send(string line)
{
    line = llStringTrim(line, STRING_TRIM);
    if (line == "") return;
    pending_line = line;
    pending_key = (string)llGenerateKey();  // a fresh key per line typed
    retries_left = 1;
    post();
}

default
{
    state_entry()
    {
        command_listener = llListen(CHANNEL, "", llGetOwner(), "");
        menu_channel = -1 - (integer)llFrand(1000000000.0);
        llOwnerSay("referee HUD ready for bout " + BOUT_ID + ": touch for the menu, or type /"
            + (string)CHANNEL + " help");
    }

    changed(integer change)
    {
        if (change & CHANGED_OWNER) llResetScript();
    }

    touch_start(integer count)
    {
        if (llDetectedKey(0) != llGetOwner()) return;
        llListenRemove(menu_listener);
        menu_listener = llListen(menu_channel, "", llGetOwner(), "");
        llDialog(llGetOwner(), "referee: bout " + BOUT_ID, MENU, menu_channel);
        llSetTimerEvent(60.0);  // a menu left open stops listening after a minute
    }

    timer()
    {
        llListenRemove(menu_listener);
        llSetTimerEvent(0.0);
    }

    listen(integer channel, string name, key id, string message)
    {
        if (id != llGetOwner()) return;
        if (channel == menu_channel)
        {
            llListenRemove(menu_listener);
            llSetTimerEvent(0.0);
            if (message == "roll d100") message = "//roll -sides100 -dice1";
            send(message);
        }
        else if (channel == CHANNEL) send(message);
    }

    http_response(key request, integer status, list metadata, string body)
    {
        if (request != pending) return;
        if (status == 499 && retries_left > 0)
        {
            retries_left -= 1;
            post();  // the same line with the same key: the service never acts twice
        }
        else if (status == 499) llOwnerSay("referee: the service did not answer in time");
        else llOwnerSay(body);  // answers and "error: ..." lines alike, to the wearer only
    }
}
