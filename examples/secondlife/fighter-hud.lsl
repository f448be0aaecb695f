// referee fighter HUD for Second Life (docs/secondlife.md). Wear it as a HUD.
//
// Set up once: paste the invite your referee's table sent you (privately) into this HUD's
// description, with your Combat Skill, e.g.
//     https://referee.example.org/static/join.html#bout=AbCdEfGhIjKl cs=65
// before or after saving this script in it: until it has joined, the HUD looks at its
// description every few seconds (editing a description raises no event) and when touched.
// or, for an SRP bout or a long invite, into a notecard named "referee" in the HUD, one setting
// a line (the invite, then cs=65, or sheet={...}, and name=... to fight under another name than
// your display name). A fighter link (...fighter.html#bout=ID&token=T, from the referee's
// console) makes the HUD act as that fighter without joining again; a token found in the
// description is taken out of it at once (anyone nearby can read a description), so keep a
// fighter link in the notecard instead.
// The invite and your token are never said on any channel; the token lives in this script only.
// Saved characters (docs/secondlife.md, "Characters"): character=NAME on a notecard line joins
// as your saved character NAME (its id and version go into the bout's record). The HUD keeps a
// character key for its wearer (in its linkset data, under the wearer's key): made with your
// first character (character=NAME and cs=65), or moved here from the console or the Discord
// bot as key=ck_... on a notecard line. /7 key tells you (privately) its link for the console.
//
// What it does: shows you the commitment, then joins with a random client-seed part of its
// own; polls the bout (GET .../glance, a few bytes while nothing changes); tells you privately
// when it is your turn; touch it for a menu of the actions legal now (and a d100 roll, status,
// score); says the public result of your rolls in local chat as OnlineHost did
// ("OnlineHost: Tarl rolled 1 100-sided die: 47 (nonce 3) sig:...", signed by the service:
// `referee judge` reads and checks it) and
// the referee's reading as "Referee"; answers to you alone with llOwnerSay. It never reads
// channel 0. Type commands on channel 7 too: /7 status, /7 odds 2d6+3, /7 roll 2d20+1d6, /7 hud.
// In an SRP bout whose referee takes positions from the world, each action carries where you
// and your target stand (SRP-14, 15).
// Limits: every answer it reads is under Second Life's default 2,048 bytes; at most 20
// requests in any 20 s (SL allows 25 per object); one retry with the same Idempotency-Key when
// SL gives up waiting (status 499), so an action is never taken twice.

integer CHANNEL = 7;             // the wearer's command channel: "/7 status"
integer METER_CHANNEL = -7302011; // the wearer's meter listens here (meter.lsl)
float POLL = 4.0;                // seconds between polls while the bout runs
float WATCH = 2.0;               // seconds between looks at the description until it joins
integer BUDGET = 20;             // most requests in any 20 s (SL's limit is 25 per object)

string base;         // https://host
string bout;         // the bout's id
string me;           // the fighter's name in the bout
string stat_key;     // "cs" (MSV) or "sheet" (SRP)
string stat_value;   // 65, or the sheet as JSON
string token;        // the fighter's bearer token: never said anywhere
string char_name;    // character=NAME: join as this saved character
string char_key;     // the wearer's character key (ck_...): never said but to the wearer
integer seq = -1;    // the last event seen
string turn;         // whose action it is
string world;        // "world" when positions come from where avatars stand
string actions = "{}"; // the actions legal now (from the last glance)
string kinds_json;   // the menu's action kinds, while the wearer picks a target
string picked;       // the kind picked
integer menu_channel;
integer menu_listener;
list sent;           // times of the requests of the last 20 s
integer config_line;
key config_query;
list config;

key pending = NULL_KEY; // the request in flight and what it was
string pending_what;
string pending_url;
string pending_method;
string pending_type;
string pending_body;
string pending_key;  // its Idempotency-Key, the same on the one retry
list pending_headers; // a character request's own headers (its key)
integer retries;
string desc_read;    // the description as it was last read
integer started;     // whether the setting read has started the join (or the fight)
integer unreachable; // whether the last poll failed (the wearer is told once, and once when it answers)

string json_object = "{}";

tell(string text) { llOwnerSay("referee: " + text); }

announce(string speaker, string text)
{
    string own = llGetObjectName();
    llSetObjectName(speaker);
    llSay(0, text);
    llSetObjectName(own);
}

integer room()
{
    float now = llGetTime();
    while (llGetListLength(sent) > 0 && now - llList2Float(sent, 0) >= 20.0)
        sent = llDeleteSubList(sent, 0, 0);
    return llGetListLength(sent) < BUDGET;
}

request(string what, string method, string path, string type, string body)
{
    request_to(what, method, base + "/api/bouts/" + bout + path, type, body, []);
}

request_to(string what, string method, string url, string type, string body, list headers)
{
    if (pending != NULL_KEY && pending_what != "glance") { tell("still waiting for the last answer"); return; }
    if (!room()) { tell("too many requests just now; try again in a few seconds"); return; }
    pending_what = what;
    pending_method = method;
    pending_headers = headers;
    pending_url = url;
    pending_type = type;
    pending_body = body;
    pending_key = (string)llGenerateKey();
    retries = 1;
    send();
}

send()
{
    list options = [HTTP_METHOD, pending_method, HTTP_MIMETYPE, pending_type,
        HTTP_CUSTOM_HEADER, "Idempotency-Key", pending_key];
    // Polls are public (no token): they do not spend the token's rate at the service.
    if (token != "" && pending_what != "glance") options += [HTTP_CUSTOM_HEADER, "Authorization", "Bearer " + token];
    options += pending_headers;
    // An action's answer holds each roll's signed line and the reading: with long names (40
    // letters of 3 bytes each, say) it passes the default 2,048 bytes, and a cut answer is no
    // JSON at all (nothing would be said). So these two are read up to Mono's 16 KB.
    if (pending_what == "act" || pending_what == "char-list") options += [HTTP_BODY_MAXLENGTH, 16384];
    sent += [llGetTime()];
    pending = llHTTPRequest(pending_url, options, pending_body);
}

poll()
{
    if (pending != NULL_KEY || !room()) return;
    pending_what = "glance";
    pending_url = base + "/api/bouts/" + bout + "/glance?after=" + (string)seq + "&fighter=" + llEscapeURL(me);
    pending_method = "GET";
    pending_type = "text/plain";
    pending_body = "";
    pending_key = (string)llGenerateKey();
    pending_headers = [];
    retries = 0;
    send();
}

// The wearer's character key, kept in the linkset data under the wearer's own key.
string held_key() { return llLinksetDataRead("character key " + (string)llGetOwner()); }
hold_key(string k) { char_key = k; llLinksetDataWrite("character key " + (string)llGetOwner(), k); }

read_setting(string line)
{
    line = llStringTrim(line, STRING_TRIM);
    integer at = llSubStringIndex(line, "#bout=");
    if (at > 0)
    {
        string link = llList2String(llParseString2List(line, [" "], []), 0);
        at = llSubStringIndex(link, "#bout=");
        base = llGetSubString(link, 0, llSubStringIndex(link, "/static/") - 1);
        bout = llGetSubString(link, at + 6, -1);
        integer amp = llSubStringIndex(bout, "&token=");
        if (amp > 0) { token = llGetSubString(bout, amp + 7, -1); bout = llGetSubString(bout, 0, amp - 1); }
        if (amp > 0 && llGetObjectDesc() == desc_read && desc_read != "")
        {
            // Anyone nearby may read a description (Edit, llGetObjectDetails): the token leaves it.
            desc_read = "";
            llSetObjectDesc(desc_read);
            tell("I took your fighter link out of my description, where anyone could read its token; to keep it across a reset, put it in a notecard named referee");
        }
        line = llStringTrim(llDeleteSubString(line, 0, llStringLength(link) - 1), STRING_TRIM);
    }
    list words = llParseString2List(line, [" "], []);
    integer i;
    for (i = 0; i < llGetListLength(words); ++i)
    {
        string word = llList2String(words, i);
        if (llGetSubString(word, 0, 2) == "cs=") { stat_key = "cs"; stat_value = llGetSubString(word, 3, -1); }
        if (llGetSubString(word, 0, 6) == "key=ck_")
        {
            hold_key(llGetSubString(word, 4, -1));
            if (llSubStringIndex(llGetObjectDesc(), "key=ck_") >= 0)
            {
                // A key is a secret, and anyone nearby may read a description: it leaves it.
                llSetObjectDesc("");
                tell("I took your character key out of my description, where anyone could read it; I keep it for you");
            }
        }
    }
    if (llGetSubString(line, 0, 9) == "character=") char_name = llStringTrim(llGetSubString(line, 10, -1), STRING_TRIM);
    if (llGetSubString(line, 0, 5) == "sheet=") { stat_key = "sheet"; stat_value = llGetSubString(line, 6, -1); }
    if (llGetSubString(line, 0, 4) == "name=") me = llStringTrim(llGetSubString(line, 5, -1), STRING_TRIM);
}

start()
{
    if (bout == "" || base == "") { tell("paste your invite into my description (or a notecard named referee)"); llSetTimerEvent(WATCH); return; }
    if (char_key == "") char_key = held_key();
    if (char_name != "") me = char_name;
    if (me == "") me = llGetDisplayName(llGetOwner());
    if (token != "") { started = TRUE; tell("fighting as " + me + " in bout " + bout); llSetTimerEvent(POLL); poll(); return; }
    if (stat_key == "" && (char_name == "" || char_key == "")) { tell("add your Combat Skill after the invite, e.g. cs=65"); llSetTimerEvent(WATCH); return; }
    started = TRUE;
    llSetTimerEvent(0.0);
    request("commitment", "GET", "/glance", "text/plain", "");
}

// The description again, if it changed since it was read (or `anyway`): a HUD that has not
// started yet starts from it. Editing a description raises no event in Second Life, so the
// timer and a touch call this until the HUD has joined.
look_again(integer anyway)
{
    if (started) return;
    if (llGetInventoryType("referee") == INVENTORY_NOTECARD)
    {
        // A notecard raises changed() when saved; a touch reads it again (the service was
        // down, say, when the HUD first tried to join).
        if (anyway) { config_line = 0; config_query = llGetNotecardLine("referee", 0); }
        return;
    }
    string desc = llGetObjectDesc();
    if (desc == desc_read && !anyway) return;
    desc_read = desc;
    bout = ""; base = ""; token = ""; stat_key = ""; stat_value = "";
    read_setting(desc);
    start();
}

string part()
{
    return llGetSubString(llSHA256String((string)llGenerateKey() + (string)llFrand(1.0)), 0, 15);
}

// character=NAME: the wearer's saved characters first (made here when it has none of that name).
characters()
{
    if (char_key == "") { made(); return; }
    request_to("char-list", "GET", base + "/api/characters", "text/plain", "", [HTTP_CUSTOM_HEADER, "Authorization", "Bearer " + char_key]);
}

made()
{
    if (stat_key == "") { tell("you have no character called " + char_name + ": add cs=65 to make it"); started = FALSE; return; }
    list fields = ["name", char_name, "system", llList2String(["srp", "msv"], stat_key == "cs")];
    if (stat_key == "cs") fields += ["sheet", llList2Json(JSON_OBJECT, ["cs", (integer)stat_value])];
    else fields += ["sheet", stat_value];
    list headers = [];
    if (char_key != "") headers = [HTTP_CUSTOM_HEADER, "Authorization", "Bearer " + char_key];
    request_to("char-new", "POST", base + "/api/characters", "application/json", llList2Json(JSON_OBJECT, fields), headers);
}

join_character(string id)
{
    request_to("join", "POST", base + "/api/bouts/" + bout + "/characters", "application/json",
        llList2Json(JSON_OBJECT, ["character", id, "client_seed", part()]), [HTTP_CUSTOM_HEADER, "X-Character-Key", char_key]);
}

join(string commitment)
{
    tell("bout " + bout + ": the server committed to its seed " + commitment + " before you joined");
    // The client seed part is drawn here, after the commitment is shown: the server could not
    // have chosen its seed to suit it (docs/ledger.md).
    if (char_name != "") { characters(); return; }
    list fields = ["name", me, "client_seed", part()];
    if (stat_key == "cs") fields += ["cs", (integer)stat_value];
    else fields += ["sheet", stat_value];
    request("join", "POST", "/join", "application/json", llList2Json(JSON_OBJECT, fields));
}

// [x_cm, y_cm, facing] of an avatar, or "" when it is not in the region.
string stand(key avatar)
{
    list where = llGetObjectDetails(avatar, [OBJECT_POS, OBJECT_ROT]);
    if (llGetListLength(where) < 2) return "";
    vector pos = llList2Vector(where, 0);
    vector euler = llRot2Euler(llList2Rot(where, 1));
    integer facing = llRound(euler.z * RAD_TO_DEG);
    return llList2Json(JSON_ARRAY, [llRound(pos.x * 100), llRound(pos.y * 100), facing]);
}

key avatar_named(string name)
{
    list agents = llGetAgentList(AGENT_LIST_REGION, []);
    integer i;
    for (i = 0; i < llGetListLength(agents); ++i)
    {
        key k = llList2Key(agents, i);
        if (llToLower(llGetDisplayName(k)) == llToLower(name) || llToLower(llKey2Name(k)) == llToLower(name)) return k;
    }
    return NULL_KEY;
}

act(string kind, string target)
{
    list options = [];
    if (target != "") options += ["target", target];
    if (world == "world")
    {
        string here = stand(llGetOwner());
        if (here != "") options += ["at", here];
        key foe = avatar_named(target);
        if (target != "" && foe != NULL_KEY) options += ["target_at", stand(foe)];
    }
    string body = llList2Json(JSON_OBJECT, ["actor", me, "kind", kind, "options", llList2Json(JSON_OBJECT, options)]);
    if (llGetListLength(options) == 0) body = llList2Json(JSON_OBJECT, ["actor", me, "kind", kind, "options", json_object]);
    request("act", "POST", "/actions", "application/json", body);
}

chat(string line)
{
    line = llStringTrim(line, STRING_TRIM);
    if (line == "") return;
    if (line == "key")
    {
        if (char_key == "") tell("I hold no character key for you yet (character=NAME and cs=65 make one)");
        else tell("your character key (a secret: whoever holds it plays your characters): " + base + "/static/characters.html#key=" + char_key);
        return;
    }
    if (line == "hud")
    {
        tell("bout " + bout + " as " + me + "; memory used " + (string)llGetUsedMemory() + " of "
            + (string)llGetMemoryLimit() + " bytes; " + (string)llGetListLength(sent) + " requests in the last 20 s");
        return;
    }
    // An action typed here would be answered to the wearer alone: its roll never said in local
    // chat, signed, as the menu's are (what `referee judge` counts). So actions are the menu's.
    // The chat grammar reads a verb case-blind and without its leading "!" and "/" ("/7 !attack",
    // "/7 /act"), so the verb is compared so too ("//roll" is "roll": not an action).
    string first = llToLower(llList2String(llParseString2List(line, [" "], []), 0));
    while (llGetSubString(first, 0, 0) == "!" || llGetSubString(first, 0, 0) == "/")
        first = llDeleteSubString(first, 0, 0);
    if (first == "attack" || first == "spirit" || first == "act")
    {
        tell("touch me for your actions: the menu says each roll in local chat, signed; a typed " + first + " would not");
        return;
    }
    request("chat", "POST", "/chat", "text/plain;charset=utf-8", line);
}

// One roll as OnlineHost said it, signed by the service: the answer's own line for it
// ("OnlineHost: Tarl rolled 1 100-sided die: 47 (nonce 3) sig:...", which `referee judge`
// reads and checks), said by the HUD under the host's name.
string host_line(string roll)
{
    string line = llJsonGetValue(roll, ["line"]);
    if (llGetSubString(line, 0, 11) == "OnlineHost: ") return llGetSubString(line, 12, -1);
    return line;
}

answered_action(string body)
{
    list rolls = llJson2List(llJsonGetValue(body, ["rolls"]));
    integer i;
    for (i = 0; i < llGetListLength(rolls); ++i) announce("OnlineHost", host_line(llList2String(rolls, i)));
    // The service says the action as its chat endpoint does (referee.sentences): the reading,
    // or why it failed after its dice were recorded, then whose turn it is or who won.
    string said = llJsonGetValue(body, ["said"]);
    if (said == JSON_INVALID) return;
    announce("Referee", said);
    tell(said);
}

// A poll's answer: a failing service is told once (not every 4 s), and once when it answers
// again; the HUD keeps polling meanwhile.
polled(integer status, string body)
{
    if (status == 200 || status == 204)
    {
        if (unreachable) tell("the service answers again");
        unreachable = FALSE;
        if (status == 200) glanced(body);
        return;
    }
    if (unreachable) return;
    unreachable = TRUE;
    string why = "no answer: it may be down";
    if (status != 499) why = "status " + (string)status;
    tell("the service does not answer my polls (" + why + "); I keep trying every "
        + (string)((integer)POLL) + " s and tell you when it answers again");
}

glanced(string body)
{
    seq = (integer)llJsonGetValue(body, ["seq"]);
    string now = llJsonGetValue(body, ["turn"]);
    world = llJsonGetValue(body, ["positions"]);
    actions = llJsonGetValue(body, ["actions"]);
    if (now == me && turn != me) tell("your turn! Touch the HUD for your actions.");
    turn = now;
    string status = llJsonGetValue(body, ["status"]);
    if (status == "closed" || status == "cancelled") llSetTimerEvent(0.0);
    if (status == "closed") tell("the bout is closed; its last event hash is " + llJsonGetValue(body, ["hash"])
        + ". Verify: " + base + "/static/verify.html#bout=" + bout);
    integer i;
    for (i = 0; i < 16; ++i)
    {
        string row = llJsonGetValue(body, ["fighters", i]);
        if (row == JSON_INVALID) i = 16;
        else if (llJsonGetValue(row, ["name"]) == me)
            llRegionSayTo(llGetOwner(), METER_CHANNEL, llList2Json(JSON_ARRAY, [me,
                (integer)llJsonGetValue(row, ["wounds"]), (integer)llJsonGetValue(row, ["threshold"]),
                llJsonGetValue(row, ["stunned"]) == JSON_TRUE, llJsonGetValue(row, ["down"]) == JSON_TRUE,
                now == me, (integer)llJsonGetValue(body, ["round"]), status]));
    }
}

// A dialog button: at most 24 bytes of UTF-8 (not characters: a name in Japanese is 3 bytes a
// letter). Base64 of 24 bytes is 32 characters, of 25 bytes 36.
string label(string text)
{
    text = llGetSubString(text, 0, 23);
    while (llStringLength(llStringToBase64(text)) > 32) text = llGetSubString(text, 0, -2);
    return text;
}

menu(string text, list buttons)
{
    llListenRemove(menu_listener);
    menu_channel = -1000000 - (integer)llFrand(1000000000.0);
    menu_listener = llListen(menu_channel, "", llGetOwner(), "");
    llDialog(llGetOwner(), text, buttons, menu_channel);
}

picked_button(string button)
{
    llListenRemove(menu_listener);
    if (button == "roll d100") { request("chat", "POST", "/chat", "text/plain;charset=utf-8", "//roll -sides100 -dice1"); return; }
    if (button == "status" || button == "score") { chat(button); return; }
    integer index = (integer)button - 1;
    if (picked == "")
    {
        picked = llList2String(llJson2List(kinds_json), index);
        list targets = llJson2List(llJsonGetValue(actions, [picked]));
        if (llGetListLength(targets) <= 1) { act(picked, llList2String(targets, 0)); picked = ""; return; }
        list buttons = [];
        integer i;
        for (i = 0; i < llGetListLength(targets) && i < 12; ++i)
            buttons += [label((string)(i + 1) + " " + llList2String(targets, i))];
        menu(picked + " whom?", buttons);
        return;
    }
    act(picked, llList2String(llJson2List(llJsonGetValue(actions, [picked])), index));
    picked = "";
}

default
{
    state_entry()
    {
        llListen(CHANNEL, "", llGetOwner(), "");
        if (llGetInventoryType("referee") == INVENTORY_NOTECARD) { config_line = 0; config_query = llGetNotecardLine("referee", 0); return; }
        look_again(TRUE);
    }

    dataserver(key query, string data)
    {
        if (query != config_query) return;
        if (data == EOF) { start(); return; }
        read_setting(data);
        config_query = llGetNotecardLine("referee", ++config_line);
    }

    changed(integer change)
    {
        if (change & (CHANGED_OWNER | CHANGED_INVENTORY)) llResetScript();
    }

    attach(key avatar)
    {
        if (avatar != NULL_KEY && token != "") poll();
        else if (avatar != NULL_KEY) look_again(FALSE);
    }

    touch_start(integer count)
    {
        if (llDetectedKey(0) != llGetOwner()) return;
        if (token == "") { if (!started) look_again(TRUE); return; }
        picked = "";
        list kinds = [];
        list pairs = llJson2List(actions);
        integer i;
        for (i = 0; i < llGetListLength(pairs) && i < 18; i += 2) kinds += [llList2String(pairs, i)];
        kinds_json = llList2Json(JSON_ARRAY, kinds);
        list buttons = ["roll d100", "status", "score"];
        for (i = 0; i < llGetListLength(kinds); ++i)
            buttons += [label((string)(i + 1) + " " + llList2String(kinds, i))];
        string text = "referee: " + me + " in bout " + bout;
        if (turn == me) text += "\nYour turn: pick an action.";
        else if (turn != "" && turn != JSON_NULL) text += "\n" + turn + " is to act.";
        menu(text, buttons);
    }

    timer()
    {
        if (!started) look_again(FALSE);
        else poll();
    }

    listen(integer channel, string name, key id, string message)
    {
        if (id != llGetOwner()) return;
        if (channel == menu_channel) picked_button(message);
        else if (channel == CHANNEL) chat(message);
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
        if (pending_what == "glance") { polled(status, body); return; }
        if (status == 499 || status >= 400)
        {
            string message = llJsonGetValue(body, ["message"]);
            // The chat endpoint's "error: ..." line as it is; anything else that is not the
            // service's JSON (a proxy's HTML page, longer than a message) by its status alone.
            if (message == JSON_INVALID && llGetSubString(body, 0, 6) == "error: ") message = body;
            else if (message == JSON_INVALID) message = "the service answered status " + (string)status;
            if (status == 499) message = "the service did not answer (it may be down, or slow): see the referee's console";
            if (pending_what == "commitment" || pending_what == "join" || llGetSubString(pending_what, 0, 4) == "char-")
            {
                // Not joined: a changed description (or a touch) tries again.
                started = FALSE;
                desc_read = llGetObjectDesc();
                llSetTimerEvent(WATCH);
                // A refusal (4xx) says what to change; no answer or a failing service (5xx) may pass.
                if (status == 499 || status >= 500) message += "; touch me to try again";
            }
            tell(message);
            return;
        }
        if (pending_what == "commitment") join(llJsonGetValue(body, ["commitment"]));
        else if (pending_what == "char-list")
        {
            string id = "";
            integer i;
            for (i = 0; i < 50; ++i)
            {
                string row = llJsonGetValue(body, ["characters", i]);
                if (row == JSON_INVALID) i = 50;
                else if (llToLower(llJsonGetValue(row, ["name"])) == llToLower(char_name)) { id = llJsonGetValue(row, ["id"]); me = llJsonGetValue(row, ["name"]); }
            }
            if (id == "") made();
            else join_character(id);
        }
        else if (pending_what == "char-new")
        {
            string made_key = llJsonGetValue(body, ["key"]);
            if (made_key != JSON_INVALID) { hold_key(made_key); tell("I keep your new character key (/7 key tells you its link)"); }
            join_character(llJsonGetValue(body, ["character", "id"]));
        }
        else if (pending_what == "join")
        {
            token = llJsonGetValue(body, ["token"]);
            tell("you joined as " + me + "; your join is event " + llJsonGetValue(body, ["seq"]) + ", hash "
                + llJsonGetValue(body, ["hash"]) + " (keep it: any export of this bout must hold it)");
            // Each joiner may add 64 characters to the client seed: told by its end (200
            // characters, at most 800 bytes), it stays one message of at most 1,024 bytes.
            string seed = llJsonGetValue(body, ["client_seed"]);
            if (llStringLength(seed) > 200) seed = "..." + llGetSubString(seed, -200, -1);
            tell("the bout's client seed is now " + seed + " (it ends with your HUD's own part)");
            llSetTimerEvent(POLL);
            poll();
        }
        else if (pending_what == "act") { answered_action(body); poll(); }
        else if (pending_what == "chat")
        {
            llOwnerSay(body);  // at most 1,024 bytes (the chat endpoint's bound): one message
            // Only a roll's answer is said aloud as the host (a "//roll" in any case, as the grammar
            // reads it): another answer that begins so (a status line of a bout named
            // "OnlineHost: ...") stays the wearer's.
            if (llToLower(llGetSubString(pending_body, 0, 5)) == "//roll" && llGetSubString(body, 0, 11) == "OnlineHost: ")
                announce("OnlineHost", llGetSubString(body, 12, -1));
        }
    }
}
