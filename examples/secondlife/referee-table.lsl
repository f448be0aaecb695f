// referee table for Second Life (docs/secondlife.md): the referee rezzes it where the spar is
// fought and runs the bout from its menu. Only its owner can use it.
//
// Set up: put the service's address and the rule system in the table's description, e.g.
//     https://referee.example.org msv Spar at the Tarn
// (the first word the address, the second msv or srp, the rest the bout's name).
// Touch it for the menu:
//   open       makes a bout (with a random referee part of the client seed) and says its
//              commitment in local chat, before anyone joins or rolls
//   invite     lists the avatars within 20 m; each one the referee picks gets its invite,
//              privately (llRegionSayTo); spectators get nothing
//   begin      says the spar's announcement, rolls initiative and says every roll as
//              OnlineHost did, then the order
//   pause, resume, skip, void   the referee's powers
//   close      (asks first) ends the bout, reveals the server seed and says the verify link
//   positions  (SRP, before open) world: reach, rear and zones of control from where the
//              avatars stand (each HUD reports it); map: the map's positions (the default)
// The referee token lives in this script only and is never said. Every answer it reads is
// under Second Life's default 2,048 bytes but initiative's (up to 16 KB, for many fighters);
// one request per touch; one retry with the same
// Idempotency-Key when SL gives up waiting (status 499), so a power is never used twice.

float RANGE = 20.0;      // invite avatars this near the table (metres)

string base;
string system = "msv";
string name = "Spar";
integer world;           // SRP: positions from where the avatars stand
string bout;
string token;            // the referee token: never said anywhere
string phase = "idle";   // idle, open, running, paused, closed
integer menu_channel;
integer menu_listener;
list near;               // the avatars the invite menu offers, by button number
list invited;            // the avatars invited so far

key pending = NULL_KEY;
string pending_what;
string pending_url;
string pending_method;
string pending_body;
string pending_key;
integer retries;

tell(string text) { llOwnerSay("referee table: " + text); }

announce(string speaker, string text)
{
    string own = llGetObjectName();
    llSetObjectName(speaker);
    llSay(0, text);
    llSetObjectName(own);
}

show()
{
    // Never the bout's id: with the service's address it is the invite, and anyone who sees
    // this text could join. The id is said only with the verify link, after the close.
    string text = "referee table: " + name + "\n" + phase;
    if (system == "srp") text += "\npositions: " + llList2String(["map", "world"], world);
    llSetText(text, <1.0, 1.0, 1.0>, 1.0);
}

request(string what, string method, string path, string body)
{
    if (pending != NULL_KEY) { tell("still waiting for the last answer"); return; }
    pending_what = what;
    pending_method = method;
    pending_url = base + "/api/bouts" + path;
    pending_body = body;
    pending_key = (string)llGenerateKey();
    retries = 1;
    send();
}

send()
{
    list options = [HTTP_METHOD, pending_method, HTTP_MIMETYPE, "application/json",
        HTTP_CUSTOM_HEADER, "Idempotency-Key", pending_key];
    if (token != "") options += [HTTP_CUSTOM_HEADER, "Authorization", "Bearer " + token];
    // The one answer that grows with the bout: initiative lists every fighter's roll (about
    // 1 KB for two, 250 bytes more a fighter), so it may be read up to Mono's 16 KB.
    if (pending_what == "begin") options += [HTTP_BODY_MAXLENGTH, 16384];
    pending = llHTTPRequest(pending_url, options, pending_body);
}

menu(string text, list buttons)
{
    llListenRemove(menu_listener);
    menu_channel = -1000000 - (integer)llFrand(1000000000.0);
    menu_listener = llListen(menu_channel, "", llGetOwner(), "");
    llDialog(llGetOwner(), text, buttons, menu_channel);
}

// A roll as OnlineHost said it, with the receipt and the service's signature after it
// ("Tarl rolled 1 100-sided die: 47 (nonce 0) sig:...", which `referee judge` reads and checks):
// initiative's rolls are each a fighter's own (act:NAME), so the receipt names no stream.
string host_line(string item)
{
    // read from the event itself, field by field: a copy of the payload would cost memory
    list dice = llJson2List(llJsonGetValue(item, ["payload", "dice"]));
    integer n = llGetListLength(dice);
    string line = llGetSubString(llJsonGetValue(item, ["payload", "stream"]), 4, -1) + " rolled "
        + (string)n + " " + llGetSubString(llList2String(dice, 0), 1, -1) + "-sided "
        + llList2String(["die", "dice"], n > 1) + ": "
        + llDumpList2String(llJson2List(llJsonGetValue(item, ["payload", "faces"])), " ")
        + " (nonce " + llJsonGetValue(item, ["payload", "nonce"]) + ")";
    if (llJsonValueType(item, ["signature"]) == JSON_STRING)
        line += " " + llJsonGetValue(item, ["signature"]);
    return line;
}

// A dialog button: at most 24 bytes of UTF-8 (a name in Japanese is 3 bytes a letter).
string label(string text)
{
    text = llGetSubString(text, 0, 23);
    while (llStringLength(llStringToBase64(text)) > 32) text = llGetSubString(text, 0, -2);
    return text;
}

// The invite menu: the avatars within RANGE not yet invited (at most 11, nearest first by
// the region's list), and "done". Only the avatars the referee picks are invited.
invite()
{
    list agents = llGetAgentList(AGENT_LIST_PARCEL, []);
    near = [];
    list buttons = ["done"];
    integer i;
    for (i = 0; i < llGetListLength(agents) && llGetListLength(near) < 11; ++i)
    {
        key avatar = llList2Key(agents, i);
        vector pos = llList2Vector(llGetObjectDetails(avatar, [OBJECT_POS]), 0);
        if (avatar != llGetOwner() && llVecDist(pos, llGetPos()) <= RANGE
            && llListFindList(invited, [avatar]) < 0)
        {
            near += [avatar];
            buttons += [label((string)llGetListLength(near) + " " + llGetDisplayName(avatar))];
        }
    }
    if (llGetListLength(near) == 0) { tell("nobody within " + (string)((integer)RANGE) + " m is left to invite"); return; }
    menu("Invite whom? Each avatar you pick gets its invite privately; nobody else does.", buttons);
}

invite_one(key avatar)
{
    string link = base + "/static/join.html#bout=" + bout;
    llRegionSayTo(avatar, 0, "Your invite to " + name + ": " + link
        + " (paste it into your referee HUD's description, then cs=YOUR_CS after it)");
    invited += [avatar];
    tell("invited " + llGetDisplayName(avatar));
}

power(string word)
{
    request(word, "POST", "/" + bout + "/" + word, "");
}

picked(string button)
{
    llListenRemove(menu_listener);
    integer index = (integer)button - 1;
    if (index >= 0 && index < llGetListLength(near) && phase == "open")
    {
        invite_one(llList2Key(near, index));
        invite();
        return;
    }
    near = [];
    if (button == "done") return;
    if (button == "open")
    {
        string part = llGetSubString(llSHA256String((string)llGenerateKey() + (string)llFrand(1.0)), 0, 15);
        list fields = ["system", system, "name", name, "client_seed", part];
        if (system == "srp") fields += ["rules", llList2Json(JSON_OBJECT, ["world_positions", llList2String([JSON_FALSE, JSON_TRUE], world)])];
        token = "";
        invited = [];
        request("open", "POST", "", llList2Json(JSON_OBJECT, fields));
    }
    else if (button == "positions") { world = !world; show(); }
    else if (button == "invite") invite();
    else if (button == "begin") request("announce", "GET", "/" + bout + "/glance", "");
    else if (button == "close") menu("Close the bout and reveal its server seed? Nothing can change it after.", ["yes, close", "no"]);
    else if (button == "yes, close") power("close");
    else if (button == "pause" || button == "resume" || button == "skip" || button == "void") power(button);
}

answered(string body)
{
    if (pending_what == "open")
    {
        bout = llJsonGetValue(body, ["id"]);
        token = llJsonGetValue(body, ["referee_token"]);
        phase = "open";
        announce("Referee", name + " is open: commitment "
            + llJsonGetValue(body, ["commitment"]) + " (published before any roll)");
        tell("bout " + bout + " is open: touch me to invite the fighters near me (you pick each), then begin");
    }
    else if (pending_what == "announce" && llListFindList(["running", "paused"], [llJsonGetValue(body, ["status"])]) >= 0)
    {
        // Begun already: an earlier begin was taken, but its answer (and its retry's) never
        // came back. The table runs it from here rather than be left on "open".
        phase = llJsonGetValue(body, ["status"]);
        tell("the bout has begun already (an earlier begin was taken, but its answer never came back): its initiative rolls and the order are in the bout's log (your console)");
    }
    else if (pending_what == "announce")
    {
        string line = llJsonGetValue(body, ["announce"]);
        if (line == JSON_NULL || line == JSON_INVALID) tell("too many fighters, or names too long, to announce in one line of chat");
        else announce("Referee", line);
        pending = NULL_KEY;
        request("begin", "POST", "/" + bout + "/initiative", "");
        return;
    }
    else if (pending_what == "begin" && llJsonValueType(body, []) != JSON_OBJECT)
    {
        // Longer than the 16 KB Second Life reads (16 fighters with long names, say): cut, it is
        // no JSON. The bout has begun; its rolls and the order are in its log.
        phase = "running";
        tell("initiative is rolled and the bout has begun, but its answer was longer than the 16 KB Second Life reads: its rolls and the order are in the bout's log (your console, and the verify link after the close)");
        announce("Referee", "Initiative is rolled: too many rolls to say in chat; each HUD tells its wearer when it is their turn");
    }
    else if (pending_what == "begin")
    {
        // One event at a time (not llJson2List of them all): the answer grows with the
        // fighters, and a copy of every event at once would double the memory it takes.
        integer i;
        string item = llJsonGetValue(body, ["events", 0]);
        while (item != JSON_INVALID)
        {
            if (llJsonGetValue(item, ["type"]) == "roll") announce("OnlineHost", host_line(item));
            item = llJsonGetValue(body, ["events", ++i]);
        }
        announce("Referee", "Order: " + llDumpList2String(llJson2List(llJsonGetValue(body, ["order"])), ", "));
        phase = "running";
    }
    else if (pending_what == "close")
    {
        phase = "closed";
        announce("Referee", "bout closed, server seed " + llJsonGetValue(body, ["server_seed"]));
        announce("Referee", "verify every roll: " + base + "/static/verify.html#bout=" + bout);
        token = "";
    }
    else
    {
        if (pending_what == "pause") phase = "paused";
        if (pending_what == "resume") phase = "running";
        announce("Referee", "the referee: " + pending_what);
    }
    show();
}

default
{
    state_entry()
    {
        list words = llParseString2List(llGetObjectDesc(), [" "], []);
        base = llList2String(words, 0);
        if (llGetListLength(words) > 1) system = llToLower(llList2String(words, 1));
        if (llGetListLength(words) > 2) name = llDumpList2String(llList2List(words, 2, -1), " ");
        if (llSubStringIndex(base, "http") != 0) tell("put the service's address in my description, e.g. https://referee.example.org msv Spar");
        show();
    }

    changed(integer change)
    {
        if (change & CHANGED_OWNER) llResetScript();
    }

    touch_start(integer count)
    {
        if (llDetectedKey(0) != llGetOwner()) return;
        list buttons = ["open"];
        if (phase == "idle" && system == "srp") buttons += ["positions"];
        if (phase == "open") buttons = ["invite", "begin", "close"];
        if (phase == "running") buttons = ["pause", "skip", "void", "close"];
        if (phase == "paused") buttons = ["resume", "skip", "void", "close"];
        menu("referee table: " + name + " (" + phase + ")", buttons);
    }

    listen(integer channel, string speaker, key id, string message)
    {
        if (channel == menu_channel && id == llGetOwner()) picked(message);
    }

    http_response(key request_id, integer status, list metadata, string body)
    {
        if (request_id != pending) return;
        pending = NULL_KEY;
        if (status == 499 && retries > 0)
        {
            retries -= 1;
            send();  // the same request with the same key: the service never acts twice
            return;
        }
        if (status == 499) { tell("the service did not answer in time"); return; }
        if (status >= 400)
        {
            string message = llJsonGetValue(body, ["message"]);
            // Not the service's JSON (a proxy's HTML page, longer than a message): its status.
            if (message == JSON_INVALID) message = "the service answered status " + (string)status;
            tell(pending_what + ": " + message);
            return;
        }
        answered(body);
    }
}
