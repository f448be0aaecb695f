"""A fake Second Life region: runs the LSL scripts of examples/secondlife, compiled to Python by
lummao, against a real referee service on 127.0.0.1.

lummao 0.5.2 compiles LSL (type checks included: a compile error is a `CompileError`) and runs a
script's events from a queue; the world's functions are the region's. Its own `llHTTPRequest`
knows only HTTP_METHOD and HTTP_CUSTOM_HEADER (anything else is a ValueError) and its timers
sleep on the real clock, so the region gives every world function itself: chat on channels
(llSay, llOwnerSay, llRegionSayTo, listen filters), dialogs, floating text, notecards
(dataserver), avatars' positions, agent lists, and HTTP with Second Life's limits. Nothing
races a clock: time is the region's own number, moved only by `advance`, which fires the timers
that fall due; events run only when the test drives them (`touch`, `say`, `click`, `advance`,
`run`). What Second Life would refuse or cut is recorded in `violations` (and the tests expect
none): more than 25 requests in 20 s from one object, an answer longer than the script reads
(2,048 bytes unless it asks for more), more than 8 custom headers or one over 253 bytes, a
chat message (llSay, llOwnerSay, llRegionSayTo) over 1,024 bytes, a dialog with more than 12
buttons, a button over 24 bytes or empty, or a message empty or of 512 bytes or more, floating
text over 254 bytes, a description over 127 bytes, a notecard line over 1,024 bytes, more
than 65 listens open in one script, and a script whose memory passes Mono's 64 KiB.
Everything said on any channel is kept in `said` (local chat also in `chat`), and every
floating text an object showed in `shown`. An object's linkset data (`llLinksetDataRead`,
`llLinksetDataWrite`, `llLinksetDataDelete`) is kept in its `linkset`, across script resets.

One helper of lummao's is replaced (`STEPS`): LSL's `++` and `--` in an expression on a local
variable. lummao 0.5.2 compiles them to `preincr(locals(), "_i")` and friends, which write the
new value into the `locals()` dict and copy it back into the frame with ctypes'
`PyFrame_LocalsToFast`. Since Python 3.13 (PEP 667) `locals()` is a snapshot and that call does
nothing, so the variable never changed: a `while` stepping through a list with `++i` (the
table's) looped forever. The region's version writes through `frame.f_locals`, the frame's own
variables on 3.13, and leaves 3.11 and 3.12 to lummao's.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import httpx
import lummao
from lummao import Key, Quaternion, Vector, lslexecutils
from lummao.lslexecutils import BaseLSLScript, DetectedDetails

NULL_KEY = Key("00000000-0000-0000-0000-000000000000")
EOF = "\n\n\n"
HTTP_METHOD, HTTP_MIMETYPE, HTTP_BODY_MAXLENGTH, HTTP_CUSTOM_HEADER = 0, 1, 2, 5
OBJECT_NAME, OBJECT_POS, OBJECT_ROT, OBJECT_DESC = 1, 3, 4, 7
INVENTORY_NOTECARD, INVENTORY_NONE = 7, -1
CHANGED_INVENTORY, CHANGED_OWNER = 1, 128
#: Second Life's limits (CONTEXT.md): requests per object per 20 s, bytes of an answer read
#: by default and at most, bytes of a chat message, its timeout.
THROTTLE, THROTTLE_SECONDS = 25, 20.0
BODY_DEFAULT, BODY_MOST = 2048, 16384
HEADERS, HEADER_BYTES = 8, 253
CHAT_BYTES, DIALOG_BUTTON_BYTES, DIALOG_BUTTONS, TEXT_BYTES = 1024, 24, 12, 254
DIALOG_MESSAGE_BYTES, DESC_BYTES, NOTECARD_LINE_BYTES = 512, 127, 1024
LISTENS = 65  # open listens per script
TIMEOUT = 60.0
#: Mono's memory per script.
MEMORY_LIMIT = 65536
#: The most events one `run` may execute before the region calls it a runaway script.
MAX_EVENTS = 20_000


def key() -> Key:
    return Key(str(uuid.uuid4()))


def _step(
    scope: dict[str, Any], name: str, amount: int, post: bool, member: int | None,
    frame: FrameType,
) -> Any:  # fmt: skip
    """`++` or `--` (`amount` 1 or -1), before or after (`post`), on a variable or one member of
    a vector or rotation: what lummao's `prepostincrdecr` computes, stored where the variable
    lives. `scope` is the script's `__dict__` for a global, `locals()` for a local."""
    if sys.version_info < (3, 13):
        return lslexecutils.prepostincrdecr(scope, name, amount, post, member, frame)
    value = scope[name]
    old = value if member is None else value[member]
    new = lslexecutils.radd(old, amount)  # LSL's addition: an integer wraps at 2**31
    if member is not None:
        value = lslexecutils.replace_coord_axis(value, member, value[member] + amount)
    else:
        value = new
    scope[name] = value
    if scope is not getattr(frame.f_locals.get("self"), "__dict__", None):
        frame.f_locals[name] = value  # a local: PEP 667's proxy writes the frame's variable
    return old if post else new


def _stepper(amount: int, post: bool) -> Callable[..., Any]:
    def step(scope: dict[str, Any], name: str, member: int | None = None) -> Any:
        return _step(scope, name, amount, post, member, sys._getframe(1))

    return step


#: lummao's names for `++i`, `i++`, `--i`, `i--`, as the compiled scripts call them.
STEPS = {
    "preincr": _stepper(1, False),
    "postincr": _stepper(1, True),
    "predecr": _stepper(-1, False),
    "postdecr": _stepper(-1, True),
}


@dataclass
class Avatar:
    """A resident: a display name, a user name, where it stands and which way it faces."""

    name: str
    username: str
    pos: tuple[float, float, float]
    facing: float = 0.0  # degrees, 0 = +x (east), 90 = +y (north)
    key: Key = field(default_factory=key)
    private: list[str] = field(default_factory=list)  # what objects told it alone
    dialog: tuple[SLObject, str, list[str], int] | None = None

    @property
    def rot(self) -> Quaternion:
        import math

        half = math.radians(self.facing) / 2
        return Quaternion((0.0, 0.0, math.sin(half), math.cos(half)))


@dataclass
class Request:
    """One HTTP request an object made, and what became of it."""

    obj: str
    method: str
    url: str
    headers: dict[str, str]
    body: str
    at: float
    status: int = 0
    answer: str = ""
    size: int = 0
    dropped: bool = False


@dataclass
class ChatLine:
    at: float
    speaker: str
    text: str


class SLObject:
    """A prim with one script in it, rezzed in the region or worn by its owner."""

    def __init__(
        self, region: Region, path: Path, name: str, owner: Avatar, desc: str,
        notecards: dict[str, list[str]] | None, worn: bool,
    ) -> None:  # fmt: skip
        self.region, self.path, self.name, self.owner = region, path, name, owner
        self.desc, self.notecards, self.worn = desc, notecards or {}, worn
        self.key = key()
        self.pos = (128.0, 128.0, 25.0)
        self.text = ""
        self.listens: dict[int, tuple[int, str, str, str]] = {}
        self.timer = 0.0
        self.next_timer = 0.0
        self.started = region.clock
        self.peak_memory = 0
        self.reset = False
        self.shown: list[str] = []
        #: The object's linkset data (llLinksetDataWrite): kept across script resets, as in SL.
        self.linkset: dict[str, str] = {}
        self.script = self._compile()

    def _compile(self) -> BaseLSLScript:
        script = self.region.compiled(self.path)()
        self.region.install(self, script)
        self.listens.clear()
        self.timer = 0.0
        return script

    @property
    def position(self) -> tuple[float, float, float]:
        return self.owner.pos if self.worn else self.pos

    def globals(self) -> list[Any]:
        names = getattr(type(self.script), "__annotations__", {})
        return [getattr(self.script, n) for n in names if hasattr(self.script, n)]

    def memory(self) -> int:
        """An estimate of the script's data in Mono's memory (its globals; see `value_bytes`)."""
        return held_bytes(self.globals())

    def run_one(self) -> None:
        """Run the next queued event, measuring its peak: the globals with the event's
        arguments (an answer's body, a heard line), the locals of every function of the script
        on the stack and the value being returned, each time a function of the script returns
        (or waits). A value held in several places (a string passed down) counts once: Mono
        passes references too."""
        _, args, _ = self.script.event_queue[0]
        source = str(self.path)
        peak = held_bytes([*self.globals(), *args])

        def measure(frame: FrameType, event: str, arg: object) -> None:
            nonlocal peak
            if event != "return" or frame.f_code.co_filename != source:
                return
            values: list[Any] = [*self.globals(), *args, arg]
            walk: FrameType | None = frame
            while walk is not None:
                if walk.f_code.co_filename == source:
                    values += [v for k, v in walk.f_locals.items() if k != "self"]
                walk = walk.f_back
            peak = max(peak, held_bytes(values))

        sys.setprofile(measure)
        try:
            self.region._loop.run_until_complete(self.script.execute_one())
        finally:
            sys.setprofile(None)
        peak = max(peak, self.memory())
        self.peak_memory = max(self.peak_memory, peak)
        if peak > MEMORY_LIMIT:
            self.region.violations.append(
                f"{self.name}: {peak} bytes of memory (Stack-Heap Collision)"
            )


def held_bytes(values: list[Any]) -> int:
    """Bytes of `values`, each object once (see `value_bytes`)."""
    unique = {id(v): v for v in values if v is not None}
    return sum(value_bytes(v) for v in unique.values())


def value_bytes(value: Any) -> int:
    """Bytes a value takes in Mono, as the LSL wiki's memory notes give them: a string or key
    is UTF-16 (2 bytes a character) plus its header, a list its entries plus their headers."""
    if isinstance(value, bool | int | float):
        return 4
    if isinstance(value, Vector):
        return 12
    if isinstance(value, Quaternion):
        return 16
    if isinstance(value, str):  # Key is a str
        return 18 + 2 * len(value)
    if isinstance(value, list):
        return 16 + sum(8 + value_bytes(v) for v in value)
    return 16


class Region:
    """The world the scripts run in (see the module text)."""

    def __init__(self, epoch: int = 1_796_000_000) -> None:
        self.clock = 0.0
        self.epoch = epoch
        self.avatars: list[Avatar] = []
        self.objects: list[SLObject] = []
        self.chat: list[ChatLine] = []
        self.requests: list[Request] = []
        self.violations: list[str] = []
        self.said: list[tuple[str, int, str]] = []  # (speaker, channel, text) on any channel
        self.drop: Callable[[Request], bool] | None = None
        #: how many answers in a row `drop` drops before it is spent (a retry's too, when 2)
        self.drops = 1
        self._pending: list[tuple[SLObject, Key, Request, int]] = []
        self._handles = 0
        self._loop = asyncio.new_event_loop()
        self._http = httpx.Client(timeout=30, trust_env=False)
        self._compiled: dict[Path, type[BaseLSLScript]] = {}

    def close(self) -> None:
        self._http.close()
        self._loop.close()

    # -- setting the scene ---------------------------------------------------------------

    def compiled(self, path: Path) -> type[BaseLSLScript]:
        if path not in self._compiled:
            namespace = dict(vars(lummao))
            source = lummao.convert_script_file(path)  # the compiled script's class
            exec(compile(source, str(path), "exec"), namespace)
            # After the script's own `from lummao import *`: its methods look these up here.
            namespace.update(STEPS)
            self._compiled[path] = namespace["Script"]
        return self._compiled[path]

    def avatar(
        self, name: str, username: str, pos: tuple[float, float, float], facing: float = 0.0
    ) -> Avatar:
        found = Avatar(name, username, pos, facing)
        self.avatars.append(found)
        return found

    def rez(
        self, path: Path, name: str, owner: Avatar, desc: str = "",
        notecards: dict[str, list[str]] | None = None, worn: bool = True,
    ) -> SLObject:  # fmt: skip
        """Rez (or wear) an object with the script at `path`; its state_entry runs at once.
        A description is cut to 127 bytes, a notecard's lines to 1,024, as Second Life does."""
        desc = self._description(name, desc)
        obj = SLObject(self, path, name, owner, desc, notecards, worn)
        self.objects.append(obj)
        self.run()
        return obj

    # -- what residents do ----------------------------------------------------------------

    def touch(self, avatar: Avatar, obj: SLObject) -> None:
        detected = DetectedDetails(Key=avatar.key, Owner=avatar.key, Name=avatar.name)
        obj.script.queue_event("touch_start", (1,), [detected])
        self.run()

    def say(self, avatar: Avatar, channel: int, text: str) -> None:
        """The avatar types `text` (on channel 0: local chat, as `/7 text` on another)."""
        if channel == 0:
            self._log(f"{avatar.name} ({avatar.username})", text)
        self.said.append((avatar.name, channel, text))
        self._hear(avatar.key, avatar.name, channel, text, None)
        self.run()

    def click(self, avatar: Avatar, button: str) -> None:
        """The avatar picks a button of the dialog it was shown last."""
        assert avatar.dialog is not None, f"{avatar.name} has no dialog open"
        _, _, buttons, channel = avatar.dialog
        assert button in buttons, f"{button!r} is not among {buttons}"
        avatar.dialog = None
        self._hear(avatar.key, avatar.name, channel, button, None)
        self.run()

    def edit_description(self, obj: SLObject, text: str) -> None:
        """The owner edits the object's description: in Second Life no event tells its script."""
        obj.desc = self._description(obj.name, text)
        self.run()

    def _description(self, name: str, text: str) -> str:
        if len(text.encode("utf-8")) > DESC_BYTES:
            self.violations.append(f"{name}: a description of {len(text.encode())} bytes")
            text = text.encode("utf-8")[:DESC_BYTES].decode("utf-8", "ignore")
        return text

    def edit_notecard(self, obj: SLObject, name: str, lines: list[str]) -> None:
        """The owner saves a notecard in the object: `changed(CHANGED_INVENTORY)`."""
        obj.notecards[name] = list(lines)
        obj.script.queue_event("changed", (CHANGED_INVENTORY,))
        self.run()

    def give(self, obj: SLObject, avatar: Avatar) -> None:
        """The object passes to another owner: `changed(CHANGED_OWNER)`."""
        obj.owner = avatar
        obj.script.queue_event("changed", (CHANGED_OWNER,))
        self.run()

    def advance(self, seconds: float) -> None:
        """Move the region's clock on, firing each timer as it falls due."""
        end = self.clock + seconds
        while True:
            due = [o for o in self.objects if o.timer > 0 and o.next_timer <= end]
            if not due:
                break
            obj = min(due, key=lambda o: o.next_timer)
            self.clock = max(self.clock, obj.next_timer)
            obj.next_timer = self.clock + obj.timer
            obj.script.queue_event("timer", ())
            self.run()
        self.clock = end

    # -- running scripts -------------------------------------------------------------------

    def run(self) -> None:
        """Run every queued event and answer every request, until the region is quiet."""
        for _ in range(MAX_EVENTS):
            obj = next((o for o in self.objects if o.script.event_queue), None)
            if obj is not None:
                obj.run_one()
                if obj.reset:
                    obj.reset = False
                    obj.script = obj._compile()
                continue
            if not self._pending:
                return
            self._answer(*self._pending.pop(0))
        raise AssertionError("the scripts never went quiet (a runaway loop?)")

    def _answer(self, obj: SLObject, request_id: Key, req: Request, most: int) -> None:
        try:
            reply = self._http.request(
                req.method, req.url, headers=req.headers,
                content=req.body.encode("utf-8") if req.method != "GET" else None,
            )  # fmt: skip
            req.status, req.answer = reply.status_code, reply.text
        except httpx.HTTPError as err:
            req.status, req.answer = 499, f"the request failed: {err}"
        req.size = len(req.answer.encode("utf-8"))
        body = req.answer
        if req.size > most:
            self.violations.append(f"{obj.name}: an answer of {req.size} bytes (reads {most})")
            body = req.answer.encode("utf-8")[:most].decode("utf-8", "ignore")
        if self.drop is not None and self.drop(req):
            # The service acted, but the answer never came back: Second Life gives up after
            # 60 s and tells the script 499.
            self.drops -= 1
            if self.drops <= 0:
                self.drop, self.drops = None, 1
            req.dropped = True
            self.clock += TIMEOUT
            req.status, body = 499, ""
        obj.script.queue_event("http_response", (request_id, req.status, [], body))

    # -- chat ------------------------------------------------------------------------------

    def _log(self, speaker: str, text: str) -> None:
        self.chat.append(ChatLine(self.clock, speaker, text))

    def chat_log(self) -> str:
        """Local chat as a Second Life viewer logs it (the judge's `second-life` format)."""
        import time

        lines = []
        for line in self.chat:
            stamp = time.strftime("%Y/%m/%d %H:%M", time.gmtime(self.epoch + line.at))
            lines.append(f"[{stamp}]  {line.speaker}: {line.text}")
        return "\n".join(lines) + "\n"

    def _hear(self, speaker: Key, name: str, channel: int, text: str, only: Key | None) -> None:
        for obj in self.objects:
            if obj.key == speaker or (only is not None and obj.owner.key != only):
                continue
            for chan, who, kid, msg in list(obj.listens.values()):
                if chan != channel or (who and who != name) or (msg and msg != text):
                    continue
                if kid and kid != NULL_KEY and kid != speaker:
                    continue
                obj.script.queue_event("listen", (channel, name, speaker, text))

    def _chat_size(self, obj: SLObject, how: str, text: str) -> str:
        """`text` as Second Life delivers it: cut to 1,024 bytes (and a violation recorded)."""
        if len(text.encode("utf-8")) > CHAT_BYTES:
            self.violations.append(f"{obj.name}: {how} of {len(text.encode())} bytes")
            return text.encode("utf-8")[:CHAT_BYTES].decode("utf-8", "ignore")
        return text

    def _speak(self, obj: SLObject, channel: int, text: str) -> None:
        text = self._chat_size(obj, "a chat message", text)
        if channel == 0:
            self._log(obj.name, text)
        self.said.append((obj.name, channel, text))
        self._hear(obj.key, obj.name, channel, text, None)

    # -- the world's functions ---------------------------------------------------------------

    def install(self, obj: SLObject, script: BaseLSLScript) -> None:
        """Give the script the world's functions, bound to `obj`."""
        region = self
        f = script.builtin_funcs

        def listen(channel: int, name: str, id_: Key, msg: str) -> int:
            if len(obj.listens) >= LISTENS:
                region.violations.append(f"{obj.name}: a listen past {LISTENS} at once")
                return -1
            region._handles += 1
            obj.listens[region._handles] = (channel, name, str(id_), msg)
            return region._handles

        def http_request(url: str, options: list[Any], body: str) -> Key:
            return region._request(obj, url, options, body)

        def region_say_to(target: Key, channel: int, text: str) -> None:
            text = region._chat_size(obj, "llRegionSayTo", text)
            avatar = region._avatar(target)
            if avatar is not None and channel == 0:
                avatar.private.append(text)
            elif avatar is not None:
                region._hear(obj.key, obj.name, channel, text, avatar.key)

        def dialog(avatar_key: Key, message: str, buttons: list[str], channel: int) -> None:
            if len(buttons) > DIALOG_BUTTONS:
                region.violations.append(f"{obj.name}: a dialog of {len(buttons)} buttons")
            if not message or len(message.encode("utf-8")) >= DIALOG_MESSAGE_BYTES:
                region.violations.append(
                    f"{obj.name}: a dialog message of {len(message.encode())} bytes"
                )
            for b in buttons:
                if not b or len(b.encode("utf-8")) > DIALOG_BUTTON_BYTES:
                    region.violations.append(f"{obj.name}: a dialog button {b!r}")
            avatar = region._avatar(avatar_key)
            assert avatar is not None
            avatar.dialog = (obj, message, list(buttons), channel)

        def set_text(text: str, color: Vector, alpha: float) -> None:
            if len(text.encode("utf-8")) > TEXT_BYTES:
                region.violations.append(f"{obj.name}: floating text of {len(text.encode())} bytes")
            obj.text = text
            obj.shown.append(text)

        def set_timer(seconds: float) -> None:
            obj.timer = float(seconds)
            obj.next_timer = region.clock + obj.timer

        def set_name(name: str) -> None:
            obj.name = name

        def notecard_line(name: str, line: int) -> Key:
            query = key()
            lines = obj.notecards[name]
            data = lines[line] if line < len(lines) else EOF
            if len(data.encode("utf-8")) > NOTECARD_LINE_BYTES:
                region.violations.append(
                    f"{obj.name}: a notecard line of {len(data.encode())} bytes"
                )
                data = data.encode("utf-8")[:NOTECARD_LINE_BYTES].decode("utf-8", "ignore")
            script.queue_event("dataserver", (query, data))
            return query

        def details(target: Key, params: list[int]) -> list[Any]:
            avatar = region._avatar(target)
            thing = next((o for o in region.objects if o.key == target), None)
            if avatar is None and thing is not None:  # any script may ask about any object
                about = {
                    OBJECT_NAME: thing.name,
                    OBJECT_DESC: thing.desc,
                    OBJECT_POS: Vector(thing.pos),
                }
                return [about[p] for p in params]
            if avatar is None:
                return []
            shown = {OBJECT_POS: Vector(avatar.pos), OBJECT_ROT: avatar.rot}
            return [shown[p] for p in params]

        def reset() -> None:
            obj.reset = True

        def set_desc(text: str) -> None:
            obj.desc = region._description(obj.name, text)

        def owner_key(target: Key) -> Key:
            found = next((o for o in region.objects if o.key == target), None)
            return found.owner.key if found else target

        def inventory_type(name: str) -> int:
            return INVENTORY_NOTECARD if name in obj.notecards else INVENTORY_NONE

        def name_of(k: Key) -> str:
            avatar = region._avatar(k)
            return avatar.name if avatar else ""

        f["llOwnerSay"] = lambda text: obj.owner.private.append(
            region._chat_size(obj, "llOwnerSay", text)
        )
        f["llSay"] = lambda channel, text: region._speak(obj, channel, text)
        f["llShout"] = f["llWhisper"] = f["llSay"]
        f["llRegionSayTo"] = region_say_to
        f["llListen"] = listen
        f["llListenRemove"] = lambda handle: obj.listens.pop(handle, None)
        f["llDialog"] = dialog
        f["llSetText"] = set_text
        f["llSetTimerEvent"] = set_timer
        f["llGetTime"] = lambda: region.clock - obj.started
        f["llGetUnixTime"] = lambda: int(region.epoch + region.clock)
        f["llGetOwner"] = lambda: obj.owner.key
        f["llGetKey"] = lambda: obj.key
        f["llGetOwnerKey"] = owner_key
        f["llGetObjectDesc"] = lambda: obj.desc
        f["llSetObjectDesc"] = set_desc
        f["llGetObjectName"] = lambda: obj.name
        f["llSetObjectName"] = set_name
        f["llGetPos"] = lambda: Vector(obj.position)
        f["llGetInventoryType"] = inventory_type
        f["llGetNotecardLine"] = notecard_line
        f["llHTTPRequest"] = http_request
        f["llGetObjectDetails"] = details
        f["llGetAgentList"] = lambda scope, options: [a.key for a in region.avatars]
        f["llGetDisplayName"] = f["llKey2Name"] = name_of
        f["llResetScript"] = reset
        f["llLinksetDataRead"] = lambda name: obj.linkset.get(name, "")
        f["llLinksetDataWrite"] = lambda name, value: obj.linkset.__setitem__(name, value) or 0
        f["llLinksetDataDelete"] = lambda name: 0 if obj.linkset.pop(name, None) is not None else 4
        f["llGetUsedMemory"] = obj.memory
        f["llGetMemoryLimit"] = lambda: MEMORY_LIMIT

    def _avatar(self, target: Key) -> Avatar | None:
        return next((a for a in self.avatars if a.key == target), None)

    def _request(self, obj: SLObject, url: str, options: list[Any], body: str) -> Key:
        recent = [
            r
            for r in self.requests
            if r.obj == str(obj.key) and self.clock - r.at < THROTTLE_SECONDS
        ]
        if len(recent) >= THROTTLE:
            self.violations.append(f"{obj.name}: request {len(recent) + 1} within 20 s: throttled")
            return NULL_KEY
        method, mimetype, most = "GET", "text/plain;charset=utf-8", BODY_DEFAULT
        headers: dict[str, str] = {}
        options = list(options)
        while options:
            flag = options.pop(0)
            if flag == HTTP_METHOD:
                method = options.pop(0)
            elif flag == HTTP_MIMETYPE:
                mimetype = options.pop(0)
            elif flag == HTTP_BODY_MAXLENGTH:
                most = min(int(options.pop(0)), BODY_MOST)
            elif flag == HTTP_CUSTOM_HEADER:
                name = options.pop(0)
                headers[name] = options.pop(0)
                if len(headers) > HEADERS or len(name) + len(headers[name]) > HEADER_BYTES:
                    self.violations.append(f"{obj.name}: custom header {name} refused")
            else:
                raise AssertionError(f"{obj.name}: HTTP option {flag} is not modelled")
        headers.update({
            "Content-Type": mimetype,
            # What Second Life adds (anyone outside SL can fake these: the service trusts tokens)
            "X-SecondLife-Object-Name": obj.name,
            "X-SecondLife-Object-Key": str(obj.key),
            "X-SecondLife-Owner-Key": str(obj.owner.key),
            "X-SecondLife-Owner-Name": obj.owner.name,
        })  # fmt: skip
        req = Request(str(obj.key), method, url, headers, body, self.clock)
        self.requests.append(req)
        request_id = key()
        self._pending.append((obj, request_id, req, most))
        return request_id
