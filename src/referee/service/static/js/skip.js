// The skip link ("Skip to the bout"), kept off the address: followed as a plain link it would
// put `#main` in place of the page's fragment, and the bout pages keep their bout and token
// there (#bout=ID&token=TOKEN): a reload, a bookmark or a copy of the address after it would
// have lost them. It moves the keyboard's focus to the page's main part instead.

for (const link of document.querySelectorAll("a.skip-link[href^='#']")) {
  link.addEventListener("click", (event) => {
    const target = document.getElementById(link.getAttribute("href").slice(1));
    if (!target) return;
    event.preventDefault();
    if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
    target.focus();
  });
}
