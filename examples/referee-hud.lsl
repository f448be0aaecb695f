// referee HUD for Second Life: posts what its wearer says to a bout's chat endpoint and says
// the answer in local chat. Wear it, then say for example:
//     //roll -sides100 -dice1
//     attack Pa-Kur
//     status
//
// Set BASE_URL, BOUT_ID and TOKEN below (the token is the fighter's or the referee's, from
// the bout's invite link). The token is a bearer secret: keep this script no-modify.
// Limits respected: one short POST per line (a request is at most 1,024 bytes of text), a
// reply of at most 1,024 bytes (the service guarantees it), said in one chat message.

string BASE_URL = "https://referee.example.org";  // where `referee serve` is reachable
string BOUT_ID  = "PUT-BOUT-ID-HERE";
string TOKEN    = "PUT-TOKEN-HERE";

integer listener;
key pending;

integer is_command(string text)
{
    string lower = llToLower(llStringTrim(text, STRING_TRIM));
    if (llSubStringIndex(lower, "//roll") == 0) return TRUE;
    list verbs = ["attack", "act", "status", "score", "init", "pause", "resume", "skip",
                  "void", "end", "cancel", "close", "add", "update", "remove", "quit", "help"];
    string first = llList2String(llParseString2List(lower, [" "], []), 0);
    return llListFindList(verbs, [first]) != -1;
}

default
{
    state_entry()
    {
        listener = llListen(0, "", llGetOwner(), "");
        llOwnerSay("referee HUD ready for bout " + BOUT_ID);
    }

    changed(integer change)
    {
        if (change & CHANGED_OWNER) llResetScript();
    }

    listen(integer channel, string name, key id, string message)
    {
        if (!is_command(message)) return;
        pending = llHTTPRequest(BASE_URL + "/api/bouts/" + BOUT_ID + "/chat",
            [HTTP_METHOD, "POST",
             HTTP_MIMETYPE, "text/plain;charset=utf-8",
             HTTP_CUSTOM_HEADER, "Authorization", "Bearer " + TOKEN,
             HTTP_BODY_MAXLENGTH, 2048],
            message);
    }

    http_response(key request, integer status, list metadata, string body)
    {
        if (request != pending) return;
        if (status >= 200 && status < 300) llSay(0, body);
        else if (status == 499) llOwnerSay("referee: the service did not answer in time");
        else llOwnerSay(body);  // "error: ..." lines explain what was wrong
    }
}
