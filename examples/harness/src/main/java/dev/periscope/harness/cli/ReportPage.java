package dev.periscope.harness.cli;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The HTML of a session's report: one file, nothing fetched when it opens (images as {@code data:}
 * URIs, CSS inline, no script, and a Content-Security-Policy that forbids anything else). Every
 * string from the recording is escaped: page titles, URLs, texts and page events are the page's,
 * and a page may write markup into them.
 */
final class ReportPage {
  private ReportPage() {}

  /** Journal events: what happened to the browser session rather than what the agent did. */
  private static final Set<String> JOURNAL =
      Set.of("fault", "recover", "challenge", "handoff", "attach", "detach", "egress");

  private static final Pattern BASE64 = Pattern.compile("[A-Za-z0-9+/]*={0,2}");
  private static final Set<String> IMAGE_TYPES = Set.of("image/jpeg", "image/png");

  /** Of a transition's frame, how many characters of the observation's text the report shows. */
  private static final int MAX_OBSERVATION_CHARS = 20_000;

  private static final String STYLE =
      """
      body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #1d1d1f; }
      h1 { font-size: 1.5em; } h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; }
      .meta, .note { color: #555; } .warn { background: #fff4d6; padding: .5em 1em; border-radius: 4px; }
      ol.timeline { list-style: none; padding: 0; }
      .entry { border: 1px solid #ddd; border-left: 6px solid #4a9; border-radius: 4px; margin: .8em 0; padding: .6em 1em; }
      .entry.failed, .entry.unknown { border-left-color: #d33; } .entry.journal { border-left-color: #c80; background: #fffaf0; }
      .head { display: flex; gap: 1em; flex-wrap: wrap; align-items: baseline; }
      .kind { font-weight: 600; } .outcome { text-transform: uppercase; font-size: .8em; }
      code, pre { font: 12px/1.4 ui-monospace, monospace; } pre { white-space: pre-wrap; word-break: break-word; }
      .failure pre { background: #fde8e8; padding: .5em; } .events li { font-family: ui-monospace, monospace; font-size: 12px; }
      img.frame { display: block; max-width: 100%; border: 1px solid #ccc; margin-top: .5em; }
      table { border-collapse: collapse; } td, th { border: 1px solid #ddd; padding: 2px 8px; text-align: left; }
      """;

  static String render(String session, String profile, List<Map<String, Object>> sessions) {
    StringBuilder h = new StringBuilder(1 << 16);
    h.append("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:;"
                + " style-src 'unsafe-inline'\">")
        .append("<title>Session ")
        .append(esc(session))
        .append("</title><style>")
        .append(STYLE)
        .append("</style></head><body>\n<h1>Session ")
        .append(esc(session))
        .append("</h1>\n<p class=\"meta\">Profile ")
        .append(esc(profile))
        .append(", written ")
        .append(esc(Instant.now().toString()))
        .append(". Secrets were redacted when the session was recorded, as in tool results.</p>\n");
    for (Map<String, Object> s : sessions) {
      browserSession(h, s);
    }
    return h.append("</body></html>\n").toString();
  }

  @SuppressWarnings("unchecked")
  private static void browserSession(StringBuilder h, Map<String, Object> s) {
    List<Map<String, Object>> transitions = list(s.get("transitions"));
    List<Map<String, Object>> frames = list(s.get("frames"));
    List<Map<String, Object>> failures = list(s.get("failures"));
    Map<String, Map<String, Object>> frameOf = new HashMap<>();
    frames.forEach(f -> frameOf.put(str(f.get("transition")), f));
    Map<String, List<String>> failuresOf = new HashMap<>();
    List<Map<String, Object>> loose = new ArrayList<>();
    for (Map<String, Object> f : failures) {
      if (f.get("transition") == null) {
        loose.add(f);
      } else {
        failuresOf
            .computeIfAbsent(str(f.get("transition")), k -> new ArrayList<>())
            .add(str(f.get("text")));
      }
    }
    h.append("<section class=\"session\"><h2>Browser session ")
        .append(esc(str(s.get("browser_session"))))
        .append("</h2>\n<p class=\"meta\">")
        .append(transitions.size())
        .append(" transition(s), ")
        .append(frames.size())
        .append(" frame(s), ")
        .append(failures.size())
        .append(" failure(s).</p>\n");
    boolean recorded = Boolean.TRUE.equals(s.get("recorded"));
    if (!recorded) {
      h.append(
          "<p class=\"warn\">This session has no recording (recording.mode off, or on-failure"
              + " deleted it when its browser closed with nothing failed, or its checkpoint was"
              + " deleted): its transitions only, without screenshots.</p>\n");
    } else if (num(s.get("dropped_frames")) > 0) {
      h.append("<p class=\"warn\">")
          .append(num(s.get("dropped_frames")))
          .append(" earlier frame(s) (")
          .append(num(s.get("dropped_bytes")))
          .append(" bytes) were dropped over the recording's budget (recording.budgetBytes);")
          .append(" their transitions are listed without screenshots.</p>\n");
    }
    pageSummary(h, frames, transitions);
    h.append("<h3>Timeline</h3>\n<ol class=\"timeline\">\n");
    int n = 0;
    for (Map<String, Object> t : transitions) {
      entry(
          h,
          ++n,
          t,
          frameOf.get(str(t.get("id"))),
          failuresOf.getOrDefault(str(t.get("id")), List.of()),
          recorded);
    }
    h.append("</ol>\n");
    if (!loose.isEmpty()) {
      h.append("<h3>Failures of calls that made no transition</h3>\n<ul>\n");
      for (Map<String, Object> f : loose) {
        h.append("<li class=\"failure\"><span class=\"time\">")
            .append(esc(str(f.get("at"))))
            .append("</span><pre>")
            .append(esc(str(f.get("text"))))
            .append("</pre></li>\n");
      }
      h.append("</ul>\n");
    }
    h.append("</section>\n");
  }

  /** The console and network summary, and the downloads and uploads, of the whole session. */
  private static void pageSummary(
      StringBuilder h, List<Map<String, Object>> frames, List<Map<String, Object>> transitions) {
    Map<String, Integer> kinds = new LinkedHashMap<>();
    List<String> lines = new ArrayList<>();
    List<String> downloads = new ArrayList<>();
    for (Map<String, Object> f : frames) {
      for (Object e : list(f.get("page_events"))) {
        String line = str(e);
        int colon = line.indexOf(':');
        String kind = colon > 0 && colon < 40 ? line.substring(0, colon) : "other";
        kinds.merge(kind, 1, Integer::sum);
        if (lines.size() < 200) {
          lines.add(line);
        }
      }
      for (Object d : list(f.get("downloads"))) {
        downloads.add(str(d));
      }
    }
    h.append("<h3>Console and network</h3>\n");
    if (kinds.isEmpty()) {
      h.append("<p class=\"note\">No page events were recorded.</p>\n");
    } else {
      h.append("<table><tr><th>page event</th><th>count</th></tr>");
      kinds.forEach(
          (k, c) ->
              h.append("<tr><td>")
                  .append(esc(k))
                  .append("</td><td>")
                  .append(c)
                  .append("</td></tr>"));
      h.append("</table>\n<details><summary>Every page event</summary><ul class=\"events\">");
      lines.forEach(l -> h.append("<li>").append(esc(l)).append("</li>"));
      h.append("</ul></details>\n");
    }
    long uploads = transitions.stream().filter(t -> "upload".equals(t.get("action"))).count();
    h.append("<h3>Downloads and uploads</h3>\n<ul>");
    downloads.forEach(d -> h.append("<li>Downloaded ").append(esc(d)).append("</li>"));
    h.append("<li>")
        .append(downloads.size())
        .append(" download(s), ")
        .append(uploads)
        .append(" upload(s)</li></ul>\n");
  }

  private static void entry(
      StringBuilder h,
      int n,
      Map<String, Object> t,
      Map<String, Object> frame,
      List<String> failures,
      boolean recorded) {
    String kind = str(t.get("action"));
    String outcome = str(t.get("outcome"));
    h.append("<li class=\"entry ")
        .append(JOURNAL.contains(kind) ? "journal " : "")
        .append(outcome.matches("[a-z]+") ? outcome : "")
        .append("\" id=\"t")
        .append(n)
        .append("\"><div class=\"head\"><span class=\"n\">#")
        .append(n)
        .append("</span><span class=\"time\">")
        .append(esc(str(t.get("started_at"))))
        .append("</span><span class=\"kind\">")
        .append(esc(kind))
        .append("</span><span class=\"outcome\">")
        .append(esc(outcome))
        .append("</span><span class=\"ms\">")
        .append(num(t.get("duration_ms")))
        .append(" ms");
    if (num(t.get("environment_ms")) > 0) {
      h.append(" (").append(num(t.get("environment_ms"))).append(" ms waiting for the browser)");
    }
    h.append("</span><span>generation ").append(num(t.get("generation"))).append("</span>");
    if (t.get("error") != null) {
      h.append("<code class=\"code\">").append(esc(str(t.get("error")))).append("</code>");
    }
    if (t.get("cause") != null) {
      h.append("<span class=\"cause\">").append(esc(str(t.get("cause")))).append("</span>");
    }
    h.append("</div>\n<div class=\"urls\">")
        .append(esc(orDash(t.get("before_url"))))
        .append(" &rarr; ")
        .append(esc(orDash(t.get("after_url"))))
        .append("</div>\n");
    if (frame != null) {
      h.append("<div class=\"args\"><code>")
          .append(esc(str(frame.get("action"))))
          .append("</code></div>\n");
    }
    for (String f : failures) {
      h.append("<div class=\"failure\"><pre>").append(esc(f)).append("</pre></div>\n");
    }
    if (frame != null) {
      for (Object d : list(frame.get("downloads"))) {
        h.append("<div class=\"download\">Downloaded ").append(esc(str(d))).append("</div>\n");
      }
      List<Object> events = list(frame.get("page_events"));
      if (!events.isEmpty()) {
        h.append("<ul class=\"events\">");
        events.forEach(e -> h.append("<li>").append(esc(str(e))).append("</li>"));
        h.append("</ul>\n");
      }
      if (frame.get("observation") != null) {
        String text = str(frame.get("observation"));
        h.append("<details><summary>Observation: ")
            .append(esc(str(frame.get("title"))))
            .append("</summary><pre>")
            .append(
                esc(
                    text.length() <= MAX_OBSERVATION_CHARS
                        ? text
                        : text.substring(0, MAX_OBSERVATION_CHARS) + "…"))
            .append("</pre></details>\n");
      }
      image(h, n, frame);
    } else if (recorded && !JOURNAL.contains(kind)) {
      h.append(
          "<p class=\"note\">No frame of this transition (dropped over the budget, or taken before the recording began).</p>\n");
    }
    h.append("</li>\n");
  }

  private static void image(StringBuilder h, int n, Map<String, Object> frame) {
    String mime = str(frame.get("image_mime_type"));
    String data = str(frame.get("image_base64"));
    if (IMAGE_TYPES.contains(mime) && !data.isEmpty() && BASE64.matcher(data).matches()) {
      h.append("<img class=\"frame\" alt=\"the page after #")
          .append(n)
          .append("\" src=\"data:")
          .append(mime)
          .append(";base64,")
          .append(data)
          .append("\">\n");
    } else if (frame.get("image_missing") != null) {
      h.append("<p class=\"note\">").append(esc(str(frame.get("image_missing")))).append("</p>\n");
    }
  }

  /** Text for HTML content and attribute values alike. */
  static String esc(String s) {
    StringBuilder b = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  @SuppressWarnings("unchecked")
  private static <T> List<T> list(Object o) {
    return o instanceof List<?> l ? (List<T>) l : List.of();
  }

  private static String str(Object o) {
    return o == null ? "" : String.valueOf(o);
  }

  private static String orDash(Object o) {
    return o == null ? "-" : String.valueOf(o);
  }

  private static long num(Object o) {
    return o instanceof Number n ? n.longValue() : 0;
  }
}
