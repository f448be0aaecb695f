"""Every event's payload, declared once: its fields, their JSON types, and who may see each.

- `referee.payloads.fields`: how a shape is declared (`Shape`, `public`, `hidden`, `private`,
  `Visibility`).
- `referee.payloads.events`: the shape of each event type (`SHAPES`); an outcome's and an
  initiative's rule-system part are declared by each system (`referee.systems.*.payloads`).
- `referee.payloads.schema`: all of it as JSON Schema (what the browser verifier's tests load).

Below everything but the vocabulary: the bout engine writes with these shapes, the fold reads
with them, the ledger verifier checks a roll by them, the service's redaction and the
renderers (`referee.sentences`, static/js/sentences.js) read who may see what.
"""

from referee.payloads.events import SHAPES
from referee.payloads.fields import Declared, Shape, Visibility, hidden, private, public

__all__ = ["SHAPES", "Declared", "Shape", "Visibility", "hidden", "private", "public"]
