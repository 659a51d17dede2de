// The language switch keeps where you are: the address as it is now (a replay's
// position, a table's #seat= or #watch), with lang= changed.
for (const link of document.querySelectorAll(".langs a[hreflang]")) {
  link.addEventListener("click", () => {
    const here = new URL(location.href);
    here.searchParams.set("lang", link.hreflang);
    link.href = here.href;
  });
}
