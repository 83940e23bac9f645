package dev.periscope.browser.playwright;

import com.microsoft.playwright.Page;
import com.microsoft.playwright.Request;
import dev.periscope.browser.policy.PolicyProxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a tab's page complained of since the last observation: console errors and warnings (every
 * console message at {@link PlaywrightSettings.Console#ALL}), uncaught exceptions and unhandled
 * rejections, and subresource requests that failed (an error status, a network error, a destination
 * the policy refused). The observation lists them under its page events, bounded: one line counting
 * them, then the first few, each cut to a line. Listeners run on the lane's thread as Playwright's
 * events arrive.
 */
final class PageConsole {
  /** The most complaints listed one by one; the count line says how many there were. */
  static final int LISTED = 5;

  /**
   * The most characters of one listed complaint kept here: well past what the model is shown (the
   * runtime cuts each page event after redaction), so that redaction sees a secret whole.
   */
  static final int LINE_CHARS = 600;

  private final Page page;
  private int errors;
  private int warnings;
  private int messages;
  private int failedRequests;
  private final List<String> listed = new ArrayList<>();

  /**
   * The most complaints the recording keeps one by one between two of its frames; past it they are
   * counted.
   */
  static final int RECORDED = 200;

  /** Every complaint since the last observation, one per line as noted. */
  private final List<String> recorded = new ArrayList<>();

  private int recordedOver;

  /**
   * The complaints of the observations that listed only the first few, in full, until the recording
   * takes them ({@link #takeRecorded}).
   */
  private final List<String> untold = new ArrayList<>();

  private int untoldOver;

  /**
   * A request that failed with a bare network error, by URL: its line's place among the listed
   * ones, or -1 when only counted or told in an earlier observation. Chromium also tells a request
   * CORS stopped as a console error; the two are one complaint.
   */
  private final java.util.Map<String, Integer> failedBare = new java.util.HashMap<>();

  /** The URLs a CORS console error told of whose request's failure has not come yet. */
  private final java.util.Set<String> corsTold = new java.util.HashSet<>();

  /** Chromium's console line for a request CORS stopped: the URL it names. */
  private static final java.util.regex.Pattern CORS =
      java.util.regex.Pattern.compile("^Access to \\S+ at '([^']+)' from origin .* CORS policy");

  PageConsole(Page page, PlaywrightSettings.Console level) {
    this.page = page;
    if (level == PlaywrightSettings.Console.OFF) {
      return;
    }
    page.onConsoleMessage(m -> quietly(() -> console(m, level)));
    page.onPageError(
        error -> quietly(() -> note(Kind.ERROR, "uncaught error: " + uncaught(error))));
    page.onResponse(response -> quietly(() -> response(response)));
    page.onRequestFailed(request -> quietly(() -> failed(request)));
  }

  private void console(
      com.microsoft.playwright.ConsoleMessage m, PlaywrightSettings.Console level) {
    switch (m.type()) {
      case "error" -> {
        // Chromium's own line for a failed load: the request's line tells it.
        if (!m.text().startsWith("Failed to load resource:") && !cors(m.text())) {
          note(Kind.ERROR, "console error: " + m.text() + at(m.location()));
        }
      }
      case "warning" -> note(Kind.WARNING, "console warning: " + m.text() + at(m.location()));
      default -> {
        if (level == PlaywrightSettings.Console.ALL) {
          note(Kind.MESSAGE, "console " + m.type() + ": " + m.text());
        }
      }
    }
  }

  private void response(com.microsoft.playwright.Response response) {
    if (response.status() >= 400 && !isDocument(response.request())) {
      boolean refused =
          response.headers().containsKey(PolicyProxy.DENIAL_HEADER.toLowerCase(Locale.ROOT));
      note(
          Kind.REQUEST,
          "request failed: "
              + response.request().method()
              + " "
              + response.url()
              + (refused ? " (refused by the network policy)" : " (" + response.status() + ")"));
    }
  }

  private void failed(Request request) {
    String failure = String.valueOf(request.failure());
    // A load the page or a navigation cancelled is no failure of the site's; one a guard refused
    // in the browser (the egress guard, a request-level policy) is told by that guard's own line.
    if (!failure.contains("ERR_ABORTED")
        && !failure.contains("ERR_BLOCKED_BY_CLIENT")
        && !isDocument(request)) {
      String url = request.url();
      boolean bare = failure.equals("net::ERR_FAILED");
      synchronized (this) {
        if (bare && corsTold.remove(url)) {
          return;
        }
        int at =
            note(
                Kind.REQUEST,
                "request failed: " + request.method() + " " + url + " (" + failure + ")");
        if (bare) {
          failedBare.put(url, at);
        }
      }
    }
  }

  /**
   * Whether a console error is the CORS side of a request's failure already noted, whose listed
   * line it then completes; else it is noted, and the request's own failure will not be again.
   */
  private synchronized boolean cors(String text) {
    var m = CORS.matcher(text);
    if (!m.find()) {
      return false;
    }
    String url = m.group(1);
    Integer at = failedBare.remove(url);
    if (at == null) {
      corsTold.add(url);
      return false;
    }
    if (at >= 0) {
      int cut = text.indexOf("CORS policy");
      listed.set(
          at, oneLine(listed.get(at).replaceFirst("\\)$", ", " + text.substring(cut) + ")")));
    }
    return true;
  }

  private enum Kind {
    ERROR,
    WARNING,
    MESSAGE,
    REQUEST
  }

  /**
   * The main document's own failure is the navigation's outcome, told where it is; a missing
   * favicon is nothing a person would notice.
   */
  private boolean isDocument(Request request) {
    return (request.isNavigationRequest() && request.frame() == page.mainFrame())
        || request.url().contains("/favicon");
  }

  /**
   * Runs a listener's body: Playwright delivers events inside whatever call the lane is making, so
   * a failure here must not fail that unrelated call.
   */
  private static void quietly(Runnable body) {
    try {
      body.run();
    } catch (RuntimeException ignored) {
      // an event this watch could not read (a closed page, a worker's request): not listed
    }
  }

  /** Counts a complaint and lists it among the first few: its place there, or -1. */
  private synchronized int note(Kind kind, String line) {
    switch (kind) {
      case ERROR -> errors++;
      case WARNING -> warnings++;
      case MESSAGE -> messages++;
      case REQUEST -> failedRequests++;
    }
    if (recorded.size() < RECORDED) {
      recorded.add(oneLine(line));
    } else {
      recordedOver++;
    }
    if (listed.size() < LISTED) {
      listed.add(oneLine(line));
      return listed.size() - 1;
    }
    return -1;
  }

  /**
   * For the session's recording, every complaint of the observations since the last call that
   * listed only the first few (one per line as noted, a request CORS stopped as its failure alone);
   * the complaints an observation listed in full are in its page events already. Past {@link
   * #RECORDED} per observation, a line counts the rest.
   */
  synchronized List<String> takeRecorded() {
    List<String> lines = new ArrayList<>(untold);
    if (untoldOver > 0) {
      lines.add("and " + untoldOver + " more complaint(s), not kept one by one");
    }
    untold.clear();
    untoldOver = 0;
    return lines;
  }

  /**
   * The lines since the last call: a count, then the first few complaints; none when the page said
   * nothing.
   */
  synchronized List<String> take() {
    int total = errors + warnings + messages + failedRequests;
    if (total == 0) {
      return List.of();
    }
    List<String> parts = new ArrayList<>();
    count(parts, errors, "error");
    count(parts, warnings, "warning");
    count(parts, messages, "other console message");
    count(parts, failedRequests, "failed request");
    List<String> lines = new ArrayList<>();
    lines.add(
        "the page reported "
            + String.join(", ", parts)
            + (total > listed.size() ? " (the first " + listed.size() + " listed)" : ""));
    lines.addAll(listed);
    if (total > listed.size()) {
      untold.addAll(recorded);
      untoldOver += recordedOver;
      if (untold.size() > 4 * RECORDED) {
        untoldOver += untold.size() - 4 * RECORDED;
        untold.subList(4 * RECORDED, untold.size()).clear();
      }
    }
    recorded.clear();
    recordedOver = 0;
    errors = 0;
    warnings = 0;
    messages = 0;
    failedRequests = 0;
    listed.clear();
    // The other half of a pair may come after this observation: the half told is remembered (a
    // page's worth), no longer listed here.
    failedBare.replaceAll((url, at) -> -1);
    if (failedBare.size() > 100 || corsTold.size() > 100) {
      failedBare.clear();
      corsTold.clear();
    }
    return lines;
  }

  private static void count(List<String> parts, int n, String what) {
    if (n > 0) {
      parts.add(n + " " + what + (n == 1 ? "" : "s"));
    }
  }

  /**
   * An uncaught error as Playwright tells it (its message, then its stack, which repeats the
   * message): the message, and where it was thrown.
   */
  static String uncaught(String error) {
    if (error == null) {
      return "(no message)";
    }
    String[] lines = error.split("\n");
    String message = lines[0].strip();
    for (String line : lines) {
      String l = line.strip();
      if (l.startsWith("at ")) {
        String where = l.substring(3);
        int open = where.lastIndexOf('(');
        if (open >= 0 && where.endsWith(")")) {
          where = where.substring(open + 1, where.length() - 1);
        }
        return message + at(where);
      }
    }
    return message;
  }

  private static final java.util.regex.Pattern LINE_AND_COLUMN =
      java.util.regex.Pattern.compile("^(.*?)(:\\d+:\\d+)$");

  /**
   * Where a message came from, short: the script's file name (no query) and its line and column,
   * when known.
   */
  static String at(String location) {
    if (location == null || location.isBlank()) {
      return "";
    }
    String where = location;
    String line = "";
    var m = LINE_AND_COLUMN.matcher(location);
    if (m.matches()) {
      where = m.group(1);
      line = m.group(2).equals(":0:0") ? "" : m.group(2);
    }
    int query = where.indexOf('?');
    if (query >= 0) {
      where = where.substring(0, query);
    }
    int slash = where.lastIndexOf('/');
    String file = slash >= 0 && slash < where.length() - 1 ? where.substring(slash + 1) : where;
    return " (" + file + line + ")";
  }

  /**
   * Bounded, but neither reshaped nor marked: the runtime redacts the line as the page wrote it,
   * then makes it one line and cuts it for the model.
   */
  private static String oneLine(String text) {
    return text.length() > LINE_CHARS ? text.substring(0, LINE_CHARS) : text;
  }
}
