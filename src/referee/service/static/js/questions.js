// What each of the referee's ending actions does, said before it is done (the referee page
// asks first, `confirmAction`): what it ends, and what it reveals or keeps secret.

import { sideWords } from "./ui.js";

const SEED_STAYS = "The server seed stays secret until you close the bout.";

function stillGoing(view) {
  if (!view || !["open", "running", "paused"].includes(view.status)) return null;
  return `The bout is still ${view.status === "open" ? "open (no initiative yet)" : view.status}${view.turn ? `, ${view.turn} to act` : ""}.`;
}

export function closeQuestion(view) {
  const going = stillGoing(view);
  return {
    title: "Close the bout and reveal the server seed?",
    lines: [
      going ? `${going} Closing ends it now, with no winner.` : null,
      `Closing reveals the server seed behind the commitment ${view ? view.commitment.slice(0, 12) : ""}… published at the start: anyone can then recompute every roll of this bout in the verifier.`,
      "After the close nothing can change the bout: no action, roll, ruling or fighter. This cannot be undone.",
    ],
    yes: "Close & reveal seed",
    no: "Keep the bout open",
    danger: true,
  };
}

export function cancelQuestion(view) {
  return {
    title: "Cancel the bout?",
    lines: [
      stillGoing(view),
      "Cancelling calls the bout off for good, with no winner: no more actions or rolls. Every event stays in the log.",
      SEED_STAYS,
    ],
    yes: "Cancel the bout",
    no: "Keep the bout",
    danger: true,
  };
}

export function endQuestion(view, winner, reason) {
  const who = winner ? `${sideWords(view, winner)} the winner` : "no winner";
  return {
    title: winner ? `End the bout with ${sideWords(view, winner)} as the winner?` : "End the bout with no winner?",
    lines: [
      stillGoing(view),
      `Ending declares ${who}${reason ? ` (“${reason}”)` : ""}: no more actions or rolls. The log records it as your ruling, not the dice's.`,
      SEED_STAYS,
    ],
    yes: "End the bout",
    no: "Keep the bout going",
    danger: true,
  };
}

export function handoverQuestion() {
  return {
    title: "Hand the bout over to another referee?",
    lines: [
      "A new referee link is made for the new referee. The link of this page stops working at once: keep the new one, or give it away.",
    ],
    yes: "Hand over",
    no: "Keep refereeing",
  };
}
