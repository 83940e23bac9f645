package dev.periscope.browser.playwright;

/**
 * The project's Selenium Grid as an operator sees it: reachable, ready, how many nodes are up and
 * how many Chrome slots are free, and where the policy proxies listen for its nodes. The harness
 * log says it as the grid provider starts, and {@code harness doctor --project} shows it.
 */
public record GridCheck(boolean ok, String detail, String remedy) {

  /** Asks the Grid now, within a few seconds. */
  public static GridCheck of(GridSettings grid) {
    String proxies =
        "; policy proxies listen on "
            + grid.proxyAddress()
            + (grid.proxyOnLoopback()
                ? " (only nodes on this machine reach them)"
                : " (the nodes must reach this address, and nothing else)");
    GridStatus status;
    try {
      status = GridClient.status(grid, 10_000);
    } catch (java.io.IOException e) {
      return new GridCheck(
          false,
          "Selenium Grid " + grid.url() + " did not answer its status: " + e.getMessage(),
          "start the Grid, or correct plugins.browser.grid.url (and headers) in the project");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new GridCheck(false, "the check was interrupted", null);
    }
    String detail = "Selenium Grid " + grid.url() + ": " + status.describe() + proxies;
    if (status.nodesUp() == 0 || status.slots() == 0) {
      return new GridCheck(
          false,
          detail,
          "start a node with Chromium and chromium-driver (docs/operations.md: Running on Selenium Grid)");
    }
    return new GridCheck(true, detail, null);
  }
}
