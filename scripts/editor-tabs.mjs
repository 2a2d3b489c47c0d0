// The editor's sidebar tabs in both page layouts Node-RED ships, for the
// browser tests and the packaging check's browser smoke test: Node-RED 4's
// tab strip (`a.red-ui-tab-link-button[href="#id"]`, a click always shows the
// tab) and Node-RED 5's icon bar (`button[data-tab-id="id"]`, a click on the
// showing tab hides it). They look at what is on the page, not at a version.

/** The button that shows a sidebar tab, in either layout. */
export function sidebarTabButton(page, id) {
  return page.locator(`a.red-ui-tab-link-button[href="#${id}"], button[data-tab-id="${id}"]`).first();
}

/** Shows a sidebar tab by its button, as a user does; a tab already showing is left alone. */
export async function showSidebarTab(page, id, content) {
  const shown = page.locator(content).first();
  if (!(await shown.isVisible())) {
    const button = sidebarTabButton(page, id);
    if (await button.isVisible()) await button.click();
    else {
      // a narrow sidebar in Node-RED 4 keeps the buttons that do not fit behind its caret menu
      await page.locator('#red-ui-sidebar .red-ui-tab-link-button-menu').click();
      await page.locator(`#red-ui-tabs-menu-option-${id}`).click();
    }
  }
  await shown.waitFor({ state: 'visible' });
}

/** The name a sidebar tab's button gives the user: its label text, or the icon button's accessible name. */
export async function sidebarTabName(page, id) {
  const label = page.locator(`#red-ui-sidebar a.red-ui-tab-label[href="#${id}"] span`);
  if ((await label.count()) > 0) return (await label.first().textContent()) ?? '';
  return (await sidebarTabButton(page, id).getAttribute('aria-label')) ?? '';
}

/** Whether a flow node is drawn highlighted (the class sits on the node's group in 5, on its rect in 4). */
export function isNodeHighlighted(page, id) {
  return page.evaluate((nodeId) => {
    const g = document.querySelector(`g.red-ui-flow-node-group[id="${nodeId}"]`);
    if (!g) return false;
    return g.matches('.red-ui-flow-node-highlighted') || Boolean(g.querySelector('.red-ui-flow-node-highlighted'));
  }, id);
}
