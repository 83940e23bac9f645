package dev.periscope.browser.tools;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.ObservationBudget;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolDescriptor;
import dev.periscope.api.tool.ToolHints;
import dev.periscope.api.tool.ToolResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code browser_find}: the elements and lines of the current page that match a text or a regular
 * expression, with refs, without the whole observation. The page is observed as {@code
 * browser_observe} would with every element and the retained text, and that observation becomes the
 * latest (its refs are the ones shown; it offers no continuation); only what matches is shown. A
 * pattern is matched in Java with a time bound, never in the page.
 */
final class FindInPage {
  /** The longest text or pattern. */
  static final int MAX_PATTERN_CHARS = 200;

  /** How long matching may take on one page before the pattern is refused as too costly. */
  static final long MATCH_BUDGET_MS = 500;

  /** Characters of context on each side of a text match. */
  static final int CONTEXT_CHARS = 60;

  private final AgentBindings bindings;
  private final Pager pager;
  private final PageFence.Sessions fences;
  private final BiConsumer<ToolCall, BrowserException> failed;

  FindInPage(
      AgentBindings bindings,
      Pager pager,
      PageFence.Sessions fences,
      BiConsumer<ToolCall, BrowserException> failed) {
    this.bindings = bindings;
    this.pager = pager;
    this.fences = fences;
    this.failed = failed;
  }

  Tool tool() {
    return new BrowserTool(
        new ToolDescriptor(
            "browser_find",
            "Find text in the current page: the elements whose name matches and the lines of text that"
                + " do, with refs, without the whole observation. Plain text matches ignoring case;"
                + " regex: true takes a regular expression. The refs are the latest observation's.",
            Param.schema(
                List.of(
                    Param.string("text", "The text, or with regex the pattern, to find.")
                        .with("maxLength", MAX_PATTERN_CHARS)
                        .asRequired(),
                    Param.bool("regex", "Treat text as a regular expression (default false)."),
                    Param.integer(
                        "max_results",
                        1,
                        100,
                        "Most elements, and most lines of text, to show (default 20)."))),
            new ToolHints(true, false, true, true)),
        this::find,
        failed);
  }

  private ToolResult find(ToolCall call) {
    Arguments args = new Arguments(call.arguments());
    String text = args.string("text");
    boolean regex = args.optionalBool("regex", false);
    int max = args.integer("max_results", 1, 100).orElse(20);
    Pattern pattern = pattern(text, regex);
    Observation o =
        bindings.run(
            call.agentSessionId(),
            call.cancellation(),
            lease ->
                lease.observe(
                    new ObservationBudget(
                        BrowserTools.RETAINED_TEXT_CHARS,
                        BrowserTools.RETAINED_ELEMENTS,
                        ObservationBudget.ALL_TIERS),
                    call.cancellation()));
    pager.first(call.agentSessionId(), o, Mode.INTERACTIVE, 0, BrowserTools.RETAINED_ELEMENTS);
    long deadline = System.nanoTime() + MATCH_BUDGET_MS * 1_000_000L;
    List<Observation.ObservedElement> elements = new ArrayList<>();
    int elementMatches = 0;
    for (Observation.ObservedElement e : o.elements()) {
      if (finds(pattern, e.name(), deadline, text) || finds(pattern, e.hint(), deadline, text)) {
        elementMatches++;
        if (elements.size() < max) {
          elements.add(e);
        }
      }
    }
    List<Map<String, Object>> lines = new ArrayList<>();
    int textMatches = 0;
    Matcher m = pattern.matcher(new Bounded(o.text(), deadline));
    int from = 0;
    while (from <= o.text().length() && found(m, from, text)) {
      if (m.end() > m.start()) {
        // An empty match (a* between letters) finds nothing to show.
        textMatches++;
        if (lines.size() < max) {
          lines.add(line(o, m.start(), m.end()));
        }
      }
      from = Math.max(m.end(), m.start() + 1);
    }
    StringBuilder head = new StringBuilder();
    head.append("Found ")
        .append(elementMatches)
        .append(elementMatches == 1 ? " element" : " elements")
        .append(" and ")
        .append(textMatches)
        .append(textMatches == 1 ? " line of text" : " lines of text")
        .append(" matching \"")
        .append(PageFence.neutralize(text))
        .append("\" in observation ")
        .append(o.id())
        .append('\n');
    // What matched is the page's, and so are the URL and title: all inside the fence. The text
    // searched for, above, is the model's own; how much was searched, below, is ours.
    StringBuilder b = new StringBuilder();
    b.append("URL: ").append(o.url()).append('\n');
    b.append("Title: ").append(o.title().isEmpty() ? "(untitled)" : o.title()).append('\n');
    if (!elements.isEmpty()) {
      b.append("Elements").append(shown(elements.size(), elementMatches)).append(":\n");
      elements.forEach(e -> Rendering.element(b, e, "  "));
    }
    if (!lines.isEmpty()) {
      b.append("Text").append(shown(lines.size(), textMatches)).append(":\n");
      for (Map<String, Object> line : lines) {
        b.append("  ");
        if (line.containsKey("ref")) {
          b.append('[').append(line.get("ref")).append("] ");
        }
        b.append(line.get("text")).append('\n');
      }
    }
    PageFence fence = fences.of(call.agentSessionId());
    head.append(fence.around(b.toString())).append('\n');
    if (o.text().length() < o.totalTextChars()) {
      head.append("(the page has ")
          .append(o.totalTextChars())
          .append(" characters of text; the first ")
          .append(o.text().length())
          .append(" were searched)\n");
    }
    Map<String, Object> structured = new LinkedHashMap<>();
    structured.put("observation_id", o.id());
    structured.put("url", o.url());
    structured.put("title", o.title());
    structured.put("element_matches", elementMatches);
    structured.put("elements", elements.stream().map(StructuredRendering::json).toList());
    structured.put("text_matches", textMatches);
    structured.put("lines", lines);
    return ToolResult.text(head.toString(), BrowserTools.fenced(fence, Map.of("find", structured)));
  }

  private static String shown(int shown, int total) {
    return shown < total ? " (first " + shown + " of " + total + ")" : "";
  }

  /**
   * The line of page text around a match, with {@value #CONTEXT_CHARS} characters on each side at
   * most, and the ref of an element whose name is the matched text, if one is listed.
   */
  private static Map<String, Object> line(Observation o, int start, int end) {
    String all = o.text();
    int lineStart = all.lastIndexOf('\n', Math.max(0, start - 1)) + 1;
    int lineEnd = all.indexOf('\n', end);
    lineEnd = lineEnd < 0 ? all.length() : lineEnd;
    int from = Math.max(lineStart, start - CONTEXT_CHARS);
    int to = Math.min(lineEnd, end + CONTEXT_CHARS);
    String snippet =
        (from > lineStart ? "…" : "")
            + all.substring(from, to).replaceAll("\\s+", " ").strip()
            + (to < lineEnd ? "…" : "");
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("text", snippet);
    String whole = all.substring(lineStart, lineEnd).strip();
    o.elements().stream()
        .filter(e -> !e.name().isEmpty() && e.name().equals(whole))
        .findFirst()
        .ifPresent(e -> line.put("ref", e.ref()));
    return line;
  }

  /** Plain text, quoted and matched ignoring case, or a regular expression of the model's. */
  static Pattern pattern(String text, boolean regex) {
    if (text.length() > MAX_PATTERN_CHARS) {
      throw invalid(
          "/text: at most " + MAX_PATTERN_CHARS + " characters (found " + text.length() + ")");
    }
    try {
      return regex
          ? Pattern.compile(text, Pattern.UNICODE_CASE)
          : Pattern.compile(Pattern.quote(text), Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    } catch (PatternSyntaxException e) {
      throw invalid(
          "/text: not a valid regular expression: "
              + e.getDescription()
              + (e.getIndex() >= 0 ? " at index " + e.getIndex() : ""));
    }
  }

  private static boolean finds(Pattern pattern, String s, long deadline, String text) {
    if (s == null || s.isEmpty()) {
      return false;
    }
    Matcher m = pattern.matcher(new Bounded(s, deadline));
    int from = 0;
    while (from <= s.length() && found(m, from, text)) {
      if (m.end() > m.start()) {
        return true;
      }
      from = m.start() + 1;
    }
    return false;
  }

  private static boolean found(Matcher m, int from, String text) {
    try {
      return m.find(from);
    } catch (Bounded.OutOfTime e) {
      throw invalid(
          "/text: matching \""
              + text
              + "\" took longer than "
              + MATCH_BUDGET_MS
              + " ms on this page; use a simpler pattern");
    } catch (StackOverflowError e) {
      // Java's matcher recurses per repetition of a group: a long page runs it out of stack. The
      // recursion has unwound by here, and the thread is fine.
      throw invalid(
          "/text: matching \""
              + text
              + "\" repeats a group too deeply for this page's text; use a simpler pattern");
    }
  }

  private static BrowserException invalid(String message) {
    return new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT, message);
  }

  /**
   * Text that stops a match running past its deadline: each character read checks the clock now and
   * then, so a pattern that backtracks without end fails instead of holding the call.
   */
  private static final class Bounded implements CharSequence {
    static final class OutOfTime extends RuntimeException {
      OutOfTime() {
        super("out of time", null, false, false);
      }
    }

    private final CharSequence text;
    private final long deadline;
    private int reads;

    Bounded(CharSequence text, long deadline) {
      this.text = text;
      this.deadline = deadline;
    }

    @Override
    public char charAt(int index) {
      if ((++reads & 0xFFF) == 0 && System.nanoTime() - deadline > 0) {
        throw new OutOfTime();
      }
      return text.charAt(index);
    }

    @Override
    public int length() {
      return text.length();
    }

    @Override
    public CharSequence subSequence(int start, int end) {
      return new Bounded(text.subSequence(start, end), deadline);
    }

    @Override
    public String toString() {
      return text.toString();
    }
  }
}
