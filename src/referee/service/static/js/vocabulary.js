// The words the console and the browser verifier share with referee.vocabulary (Python): every
// event type the bout engine writes, spelt once. tests/test_ledger_vectors.py checks that
// EventType here is the Python EventType, name for name and in order.

/** Every kind of event the bout engine writes. */
export const EventType = Object.freeze({
  BOUT_OPENED: "bout_opened",
  FIGHTER_ADDED: "fighter_added",
  FIGHTER_UPDATED: "fighter_updated",
  FIGHTER_REMOVED: "fighter_removed",
  REVEALED: "revealed",
  CLIENT_SEED_FIXED: "client_seed_fixed",
  ACTION: "action",
  ROLL: "roll",
  INITIATIVE: "initiative",
  OUTCOME: "outcome",
  FAILED: "failed",
  WOUND: "wound",
  CONDITION: "condition",
  STAT: "stat",
  DEFEATED: "defeated",
  TURN: "turn",
  SKIPPED: "skipped",
  PAUSED: "paused",
  RESUMED: "resumed",
  JOINING_CLOSED: "joining_closed",
  OVERRIDDEN: "overridden",
  VOIDED: "voided",
  ENDED: "ended",
  CANCELLED: "cancelled",
  REFEREE_CHANGED: "referee_changed",
  SEED_ROTATED: "seed_rotated",
  CLOSED: "closed",
  TIME_PASSED: "time_passed",
});

/** Every event type's name, in the order EventType declares them (the SSE message names). */
export const EVENT_TYPES = Object.freeze(Object.values(EventType));
