package dev.periscope.browser.tools;

import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.handoff.LiveView;
import dev.periscope.browser.store.RuntimeRecords;
import dev.periscope.browser.store.WatchRequests;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The operator's side of a watch ({@code browser_watch}): asks, through the store, the process that
 * runs a session for a read-only live view of it, and answers with its one-time link; or stops the
 * session's watches. The link's token is made here and only its hash is stored: the link reaches
 * the operator alone, never a log or the model.
 */
final class WatchLinks {
  /**
   * How long a process that runs the session has to take the request (it looks four times a
   * second).
   */
  static final long CLAIM_WAIT_MS = 3_000;

  /**
   * How long, once taken, the watch may take to open (the agent's call on the lane comes first).
   */
  static final long OPEN_WAIT_MS = 30_000;

  static final int DEFAULT_EXPIRES_S = 60;
  static final int MAX_EXPIRES_S = 3_600;

  private final RuntimeRecords records;
  private final WatchRequests store;
  private final String profile;

  WatchLinks(RuntimeRecords records, WatchRequests store, String profile) {
    this.records = records;
    this.store = store;
    this.profile = profile;
  }

  ToolResult watch(String session, Optional<String> project, boolean stop, int expiresS) {
    List<BrowserSessionId> ids = records.browserSessionsOf(session, project);
    if (ids.isEmpty()) {
      return ToolResult.error(
          "no agent or browser session \"" + session + "\" in profile " + profile);
    }
    // What a killed process left (its watches, a request its operator never withdrew) goes first.
    store.sweep(System.currentTimeMillis());
    if (stop) {
      int stopped = ids.stream().mapToInt(id -> store.stop(id.value())).sum();
      return stopped == 0
          ? ToolResult.error("no watch of session \"" + session + "\" is open")
          : ToolResult.text(
              "Stopped "
                  + stopped
                  + (stopped == 1 ? " watch" : " watches")
                  + " of session "
                  + session,
              Map.of("stopped", stopped));
    }
    List<String> refusals = new java.util.ArrayList<>();
    for (BrowserSessionId id : ids) {
      String token = LiveView.newToken();
      long expiresAt = System.currentTimeMillis() + expiresS * 1_000L;
      String request = store.ask(id.value(), LiveView.tokenHash(token), expiresAt);
      Optional<WatchRequests.Request> answer = await(request);
      if (answer.isEmpty()) {
        continue;
      }
      WatchRequests.Request a = answer.get();
      if (a.state().equals("open") && a.place().isPresent()) {
        String link = a.place().get() + "?token=" + token;
        String until = Instant.ofEpochMilli(expiresAt).truncatedTo(ChronoUnit.SECONDS).toString();
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("link", link);
        data.put("browser_session", id.value());
        data.put("expires_at", until);
        return ToolResult.text(
            "A read-only live view of browser session "
                + id
                + " (session "
                + session
                + "): open it once, before "
                + until
                + "; it shows the current tab and takes no input.\n"
                + link
                + "\n",
            data);
      }
      a.reason().ifPresent(refusals::add);
      store.delete(request);
    }
    if (!refusals.isEmpty()) {
      return ToolResult.error(String.join("; ", refusals));
    }
    return ToolResult.error(
        "session \""
            + session
            + "\" has no browser running now: no process of profile "
            + profile
            + " holds its browser open (a watch shows a session while harness mcp or harness run"
            + " runs it)");
  }

  /**
   * The request once answered (open or refused); empty when no process took it in time (then it is
   * withdrawn).
   */
  private Optional<WatchRequests.Request> await(String request) {
    long claimBy = System.nanoTime() + CLAIM_WAIT_MS * 1_000_000;
    long openBy = claimBy + OPEN_WAIT_MS * 1_000_000;
    while (true) {
      Optional<WatchRequests.Request> r = store.get(request);
      if (r.isEmpty()) {
        return Optional.empty();
      }
      String state = r.get().state();
      if (state.equals("open") || state.equals("refused")) {
        return r;
      }
      long now = System.nanoTime();
      if ((state.equals("asked") && now > claimBy && store.withdraw(request)) || now > openBy) {
        store.delete(request);
        return Optional.empty();
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        store.delete(request);
        return Optional.empty();
      }
    }
  }
}
