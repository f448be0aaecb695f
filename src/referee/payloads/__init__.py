"""Every event's payload, declared once: its fields, their JSON types, and who may see each.

- `referee.payloads.fields`: a shape (`Shape`): written as JSON (`to_json`), read back from an
  event (`read`), and a payload from outside read by it (`Shape.given` -> `Given`, whose
  `wrong()` names the first key that does not fit, a `Wrong`); it names all of the below too.
- `referee.payloads.declared`: what each field declares (`public`, `hidden`, `private`,
  `Visibility`, `Declared`) and the shapes' root, which lists them (`ShapeBase.declared`).
- `referee.payloads.wrong`: whether a payload from outside fits its shape (`wrong_key`).
- `referee.payloads.events`: the shape of each event type (`SHAPES`); an outcome's and an
  initiative's rule-system part are declared by each system (`referee.systems.*.payloads`).
- `referee.payloads.schema`: all of it as JSON Schema (what the browser verifier's tests load).

Below everything but the vocabulary: the bout engine writes with these shapes, the fold reads
with them, the ledger verifier checks a roll by them, the service's redaction and the
renderers (`referee.sentences`, static/js/sentences.js) read who may see what. The ledger
verifier, the rules replay, the judge's receipts and the store read exports and stored rows
with `Shape.given`: no payload key is spelt outside its shape (tests/test_payload_reads.py).
"""

from referee.payloads.events import SHAPES
from referee.payloads.fields import (
    Declared,
    Given,
    Shape,
    Visibility,
    Wrong,
    hidden,
    private,
    public,
)

__all__ = [
    "SHAPES",
    "Declared",
    "Given",
    "Shape",
    "Visibility",
    "Wrong",
    "hidden",
    "private",
    "public",
]
