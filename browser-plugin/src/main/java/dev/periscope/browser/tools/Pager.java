package dev.periscope.browser.tools;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Observation;
import java.util.HashMap;
import java.util.Map;

/**
 * The open page cursor of each agent session. A continuation belongs to the newest observation
 * only: any tool that produces an observation replaces it, and reading past the end closes it.
 */
final class Pager {
  private record Cursor(String token, ObservationPage page, int textChars, int elements) {}

  private final Map<String, Cursor> cursors = new HashMap<>();
  private final Map<String, Integer> counters = new HashMap<>();

  /** The first page of a new observation; it replaces the session's cursor. */
  synchronized ObservationPage first(
      String agentSessionId, Observation o, Mode mode, int textChars, int elements) {
    String token = "cursor-" + counters.merge(agentSessionId, 1, Integer::sum);
    ObservationPage page = ObservationPage.of(o, mode, 0, textChars, 0, elements, token);
    remember(agentSessionId, token, page, textChars, elements);
    return page;
  }

  /** The next page after {@code continuation}. */
  synchronized ObservationPage next(String agentSessionId, String continuation) {
    Cursor cursor = cursors.get(agentSessionId);
    if (cursor == null) {
      throw new BrowserException(
          ErrorCode.BROWSER_CONTINUATION_EXHAUSTED,
          "there is nothing more to read in this observation; call browser_observe for a fresh one");
    }
    if (!cursor.token().equals(continuation)) {
      throw BrowserException.of(
              ErrorCode.BROWSER_OBSERVATION_SUPERSEDED,
              "continuation \""
                  + continuation
                  + "\" belongs to an older observation; use the newest one or call browser_observe")
          .withUrl(cursor.page().observation().url());
    }
    ObservationPage previous = cursor.page();
    String token = "cursor-" + counters.merge(agentSessionId, 1, Integer::sum);
    ObservationPage page =
        ObservationPage.of(
            previous.observation(),
            previous.mode(),
            previous.textEnd(),
            cursor.textChars(),
            previous.elementEnd(),
            cursor.elements(),
            token);
    remember(agentSessionId, token, page, cursor.textChars(), cursor.elements());
    return page;
  }

  synchronized void clear(String agentSessionId) {
    cursors.remove(agentSessionId);
  }

  synchronized void forget(String agentSessionId) {
    cursors.remove(agentSessionId);
    counters.remove(agentSessionId);
  }

  private void remember(
      String agentSessionId, String token, ObservationPage page, int textChars, int elements) {
    if (page.continuation() != null) {
      cursors.put(agentSessionId, new Cursor(token, page, textChars, elements));
    } else {
      cursors.remove(agentSessionId);
    }
  }
}
