"""Routes of characters (`referee.service.characters`): made, listed, shown, changed and
retired with the player's key (`Authorization: Bearer ck_...`; a new character without one
makes the key, handed back once), and joined to a bout (`X-Character-Key: ck_...`, beside the
bout's own token when the referee adds it as an NPC). Each is one transaction."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from pydantic import Field, field_validator

from referee.service import characters as ch
from referee.service.models import BoundedObject, Name, Strict, bounded
from referee.service.routing import Ask, AuthHeader, Writer, bearer

#: The character key's header on a bout's route, as the schema states it.
KEY_PARAMETER = {
    "name": ch.KEY_HEADER,
    "in": "header",
    "required": True,
    "description": "ck_... : the key that holds the character",
    "schema": {"type": "string", "minLength": 1, "maxLength": 64},
}
Gear = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=ch.MAX_ITEM)]],
    Field(max_length=ch.MAX_GEAR),
]
Hidden = Annotated[list[Annotated[str, Field(max_length=40)]], Field(max_length=20)]
CharacterId = Field(min_length=1, max_length=40)


class NewCharacter(Strict):
    """`{"name", "system", "sheet", "gear"?, "hidden"?}`: MSV's sheet is `{"cs": 65}`."""

    name: str = Name
    system: str = Field(min_length=1, max_length=32, examples=["msv"])
    sheet: BoundedObject
    gear: Gear = Field(default_factory=list)
    hidden: Hidden = Field(default_factory=list)

    @field_validator("sheet")
    @classmethod
    def _bounded_sheet(cls, value: Any) -> Any:
        return bounded(value, "sheet")


class ChangeCharacter(Strict):
    """What changes: the name, the whole sheet, the gear, the hidden stats (any of them)."""

    name: str | None = Field(default=None, min_length=1, max_length=40)
    sheet: BoundedObject | None = None
    gear: Gear | None = None
    hidden: Hidden | None = None

    @field_validator("sheet")
    @classmethod
    def _bounded_sheet(cls, value: Any) -> Any:
        return None if value is None else bounded(value, "sheet")


class JoinCharacter(Strict):
    """`{"character": ID, "side"?, "client_seed"?, "hide"?}`: a saved character joins."""

    character: str = CharacterId
    side: str | None = Field(default=None, min_length=1, max_length=40)
    client_seed: str | None = Field(default=None, min_length=1, max_length=64)
    hide: bool = False
    """The referee's NPC: hide every stat its rule system may hide (besides its own)."""


def routes(ask: Ask, router: APIRouter) -> None:
    """Add the routes of this module over `ask` to `router`."""
    service = ask.service
    store = ask.store

    @router.post("/api/characters", status_code=201, tags=["characters"])
    async def create(body: NewCharacter, write: Writer) -> dict[str, Any]:
        """A new character under the bearer key, or, with none, under a new key: `key` comes
        back once, keep it (it is never shown again)."""
        return dict(
            await write.once(
                body,
                lambda caller: ch.create(
                    store, write.token, body.name, body.system, body.sheet, body.gear,
                    body.hidden,
                ),
            )
        )  # fmt: skip

    @router.get("/api/characters", tags=["characters"])
    def list_characters(authorization: AuthHeader = None) -> dict[str, Any]:
        """The key's characters, each hidden stat said `"hidden"`."""
        return {"characters": ch.listed(store, ch.checked_key(bearer(authorization)))}

    @router.get("/api/characters/{character_id}", tags=["characters"])
    def show(character_id: str, authorization: AuthHeader = None) -> dict[str, Any]:
        """One of the key's characters, whole."""
        return ch.shown(store, ch.checked_key(bearer(authorization)), character_id)

    @router.patch("/api/characters/{character_id}", tags=["characters"])
    async def change(character_id: str, body: ChangeCharacter, write: Writer) -> dict[str, Any]:
        """The character's next version (what is given replaces what was)."""
        return dict(
            await write.once(
                body,
                lambda caller: ch.change(
                    store, ch.checked_key(write.token), character_id, name=body.name,
                    sheet=body.sheet, gear=body.gear, hidden=body.hidden,
                ),
            )
        )  # fmt: skip

    @router.delete("/api/characters/{character_id}", tags=["characters"])
    async def retire(character_id: str, write: Writer) -> dict[str, Any]:
        """Take the character off the key's list (the bouts that name it keep it)."""

        def run(caller: Any) -> dict[str, Any]:
            ch.retire(store, ch.checked_key(write.token), character_id)
            return {"retired": character_id}

        return dict(await write.once(None, run))

    @router.post(
        "/api/bouts/{bout_id}/characters",
        status_code=201,
        tags=["characters"],
        openapi_extra={"parameters": [KEY_PARAMETER]},
    )
    async def join(
        bout_id: str, body: JoinCharacter, write: Writer, request: Request
    ) -> dict[str, Any]:
        """A saved character joins the bout (its id and version in its join): as itself with
        no token (its fighter token comes back once), or as the referee's NPC with the
        referee's token (its hidden stats kept hidden). The key is the `X-Character-Key`
        header, read from the request itself so the route keeps its lean lane."""
        key = request.headers.get(ch.KEY_HEADER)
        return dict(
            await write.once(
                body,
                lambda caller: ch.join_character(
                    service, bout_id, caller, ch.checked_key(key, f"{ch.KEY_HEADER}:"),
                    body.character, body.side, body.client_seed, body.hide,
                ),
            )
        )  # fmt: skip
