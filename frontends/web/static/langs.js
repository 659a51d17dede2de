// The language switch keeps where you are: the address as it is now (a replay's
// position, a table's #watch, the seat a page holds), with lang= changed.
for (const link of document.querySelectorAll(".langs a[hreflang]")) {
  link.addEventListener("click", (click) => {
    const here = new URL(location.href);
    here.searchParams.set("lang", link.hreflang);
    link.href = here.href;
    if (history.state) { // a seat's token lives in this entry's state: reload in place
      click.preventDefault();
      history.replaceState(history.state, "", here.href);
      location.reload();
    }
  });
}
