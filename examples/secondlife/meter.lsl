// referee meter for Second Life (docs/secondlife.md): floating text over a fighter. Wear it on
// the head (not as a HUD: a HUD's floating text is seen only by its wearer).
//
// It shows the fighter's name, damage taken of the limit, STUNNED, DOWN and whose turn it is.
// It sends no request of its own: the wearer's fighter HUD polls the bout (a few bytes while
// nothing changes) and hands it each change on a private channel, with llRegionSayTo to its own
// wearer, which only that avatar's attachments hear; the meter takes it only from an object of
// the same owner. So a fighter costs the service one poll every few seconds, not two.

integer METER_CHANNEL = -7302011;  // the fighter HUD's channel to its wearer's meter

string shown;

default
{
    state_entry()
    {
        llListen(METER_CHANNEL, "", NULL_KEY, "");
        shown = "referee meter\n(waiting for the fighter HUD)";
        llSetText(shown, <1.0, 1.0, 1.0>, 1.0);
    }

    changed(integer change)
    {
        if (change & CHANGED_OWNER) llResetScript();
    }

    listen(integer channel, string name, key id, string message)
    {
        if (llGetOwnerKey(id) != llGetOwner()) return;  // only the wearer's own HUD
        // [name, wounds, threshold, stunned, down, my turn, round, status]
        list row = llJson2List(message);
        if (llGetListLength(row) < 8) return;
        integer wounds = llList2Integer(row, 1);
        integer limit = llList2Integer(row, 2);
        string text = llList2String(row, 0) + "\ndamage " + (string)wounds + " / " + (string)limit;
        if (llList2Integer(row, 3)) text += "\nSTUNNED";
        if (llList2Integer(row, 4)) text += "\nDOWN";
        string status = llList2String(row, 7);
        if (status != "running") text += "\n" + status;
        else if (llList2Integer(row, 5)) text += "\nround " + llList2String(row, 6) + ": to act";
        else text += "\nround " + llList2String(row, 6);
        if (text == shown) return;
        shown = text;
        float hurt = 0.0;
        if (limit > 0) hurt = (float)wounds / (float)limit;
        if (hurt > 1.0) hurt = 1.0;
        llSetText(text, <hurt, 1.0 - hurt, 0.2>, 1.0);
    }
}
