package dev.periscope.browser.tools;

import dev.periscope.api.browser.ElementState;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.Transition;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How observation pages and transitions read to the model: the text ({@link StructuredRendering}
 * gives clients the same as structured content).
 */
final class Rendering {
  private Rendering() {}

  /**
   * The page as the model reads it. Our heading (the observation's id, the tab it is of) comes
   * first; then, between {@code fence}'s markers, all that the page decides: its URL, status and
   * title, the other tabs, the page's events, a dialog's message, a challenge, the elements (their
   * refs and kinds are ours, their names, hints and values the page's) and the page's text; last,
   * outside the fence, what to do about a dialog or a challenge and how to read on.
   */
  static String text(ObservationPage page, PageFence fence) {
    Observation o = page.observation();
    StringBuilder head = new StringBuilder();
    head.append("Observation ")
        .append(o.id())
        .append(" (revision ")
        .append(o.revision())
        .append(", mode ")
        .append(page.mode().id())
        .append(")\n");
    StringBuilder b = new StringBuilder();
    StringBuilder after = new StringBuilder();
    b.append("URL: ").append(o.url()).append('\n');
    if (o.status() >= 400) {
      b.append("HTTP status: ").append(o.status()).append(" (the site answered with an error)\n");
    }
    b.append("Title: ").append(o.title().isEmpty() ? "(untitled)" : o.title()).append('\n');
    tabs(head, b, o);
    if (firstPage(page) && !o.pageEvents().isEmpty()) {
      b.append("Page events since the last observation:\n");
      o.pageEvents().forEach(event -> b.append("  - ").append(event).append('\n'));
    }
    if (o.dialog() != null) {
      dev.periscope.api.browser.PageDialog d = o.dialog().shown();
      b.append("Dialog open (").append(d.type()).append("): \"").append(d.message()).append('"');
      if (d.type().equals("prompt")) {
        b.append(", offering \"").append(d.defaultPrompt()).append('"');
      }
      b.append('\n');
      after
          .append(
              "Dialog open: the page runs nothing until it is answered: browser_dialog(accept=true|false")
          .append(o.dialog().type().equals("prompt") ? ", prompt_text" : "")
          .append(").\n");
    }
    if (o.challenge() != null) {
      challenge(b, after, o.challenge());
    }
    int shown = page.elements().size();
    int hidden = Math.max(0, o.totalElements() - page.elementOffset() - shown);
    if (page.elementOffset() > 0 || page.elementsTruncated()) {
      b.append("Interactive elements: ")
          .append(shown)
          .append(" shown from rank ")
          .append(page.elementOffset() + 1)
          .append("; ")
          .append(hidden)
          .append(" not shown\n");
    } else {
      b.append("Interactive elements: ")
          .append(shown)
          .append(" of ")
          .append(o.totalElements())
          .append('\n');
    }
    List<Observation.ObservedElement> ungrouped =
        page.elements().stream().filter(e -> e.group() == null).toList();
    List<Observation.Group> groups = groupsOf(page);
    if (ungrouped.isEmpty() && groups.isEmpty()) {
      b.append("  (none)\n");
    }
    ungrouped.forEach(e -> element(b, e, "  "));
    if (!groups.isEmpty()) {
      b.append("Records: ").append(groups.size()).append('\n');
      for (Observation.Group g : groups) {
        // The element that stands for the record (its title link) first: a record whose title it
        // shows is that element's line, the title said once, then the record's line of other text.
        List<Observation.ObservedElement> members =
            page.elements().stream()
                .filter(e -> g.ref().equals(e.group()))
                .sorted(java.util.Comparator.comparing(e -> !e.ref().equals(g.target())))
                .toList();
        Observation.ObservedElement first = members.get(0);
        boolean titled = titledBy(g, page).isPresent();
        String detail = g.detail().isEmpty() ? "" : " · " + g.detail();
        if (titled) {
          element(b, first, "  [" + g.ref() + "] ", detail);
        } else {
          b.append("  [")
              .append(g.ref())
              .append("] ")
              .append(g.label().isEmpty() ? "(untitled record)" : g.label())
              .append('\n');
        }
        members.stream().skip(titled ? 1 : 0).forEach(e -> element(b, e, "    "));
      }
    }
    b.append('\n');
    if (page.text().isEmpty() && page.textOffset() == 0) {
      b.append("Page text: not included in ")
          .append(page.mode().id())
          .append(" mode (")
          .append(o.totalTextChars())
          .append(" chars available)");
    } else {
      b.append("Page text (")
          .append(page.textOffset() + 1)
          .append('-')
          .append(page.textEnd())
          .append(" of ")
          .append(o.totalTextChars())
          .append(" chars; a line that is an element or a record above shows its ref):\n")
          .append(withRefs(page));
    }
    head.append(fence.around(b.toString())).append('\n');
    if (!after.isEmpty()) {
      head.append(after);
    }
    if (page.continuation() != null) {
      head.append("\nMore remains. Call browser_observe_next with continuation \"")
          .append(page.continuation())
          .append("\".");
    } else if ((page.textTruncated() && page.mode().textChars > 0) || page.elementsTruncated()) {
      head.append(
          "\nThe page holds more than this observation retained; re-observe with a larger budget or another"
              + " mode.");
    }
    return head.toString().stripTrailing();
  }

  /**
   * A challenge: what it is, where, on {@code b} (its frame is the page's); what it means for the
   * model's next step on {@code after}, outside the fence.
   */
  private static void challenge(
      StringBuilder b, StringBuilder after, dev.periscope.api.browser.PageChallenge c) {
    String what = c.describe();
    b.append("Challenge: ").append(Character.toUpperCase(what.charAt(0))).append(what.substring(1));
    if (!c.frame().isEmpty()) {
      b.append(" in frame ").append(c.frame());
    }
    if (c.ref() != null) {
      b.append(" (").append(c.ref()).append(')');
    }
    b.append(".\n");
    after
        .append("Challenge: ")
        .append(
            switch (c.kind()) {
              case dev.periscope.api.browser.PageChallenge.INTERSTITIAL ->
                  "Nothing on this page can be acted on until it passes: wait and observe again, or"
                      + " hand the page to a person.\n";
              case dev.periscope.api.browser.PageChallenge.LOGIN_WALL ->
                  "What it covers cannot be acted on: sign in through it first, or hand the page to"
                      + " a person.\n";
              default ->
                  "It waits for a person: actions on it and on what it guards fail"
                      + " BROWSER_CHALLENGE until it is solved.\n";
            });
  }

  /**
   * The page's text with each whole line that is the own text of an element or record listed on
   * this page shown as its ref, so that what the list shows is not said again: a record's lines
   * become its group ref once, an element's its ref, and refs that follow one another share a line
   * ({@code [e1] [e2] [e3]}). A line cut by the page's edges stays text.
   */
  static String withRefs(ObservationPage page) {
    Observation o = page.observation();
    String text = page.text();
    if (o.textLines().isEmpty() || text.isEmpty()) {
      return text;
    }
    Set<String> listed = new java.util.HashSet<>();
    page.elements().forEach(e -> listed.add(e.ref()));
    Set<String> records = new java.util.HashSet<>();
    groupsOf(page).forEach(g -> records.add(g.ref()));
    Map<Integer, Observation.TextLine> owners = new java.util.HashMap<>();
    o.textLines().forEach(l -> owners.put(l.line(), l));
    String whole = o.text();
    int offset = page.textOffset();
    int first = 0;
    for (int i = 0; i < offset; i++) {
      if (whole.charAt(i) == '\n') {
        first++;
      }
    }
    boolean cutBefore = offset > 0 && whole.charAt(offset - 1) != '\n';
    boolean cutAfter = page.textEnd() < whole.length() && whole.charAt(page.textEnd()) != '\n';
    String[] lines = text.split("\n", -1);
    Set<String> said = new java.util.HashSet<>();
    StringBuilder out = new StringBuilder(text.length());
    // Refs that follow one another, blank lines between them or not, share a line.
    boolean afterRef = false;
    int blanks = 0;
    for (int i = 0; i < lines.length; i++) {
      Observation.TextLine owner = owners.get(first + i);
      boolean whole_ = !(i == 0 && cutBefore) && !(i == lines.length - 1 && cutAfter);
      String shown = null;
      if (owner != null && whole_) {
        if (owner.group() != null && records.contains(owner.group())) {
          if (!said.add(owner.group())) {
            continue;
          }
          shown = "[" + owner.group() + "]";
        } else if (owner.ref() != null && listed.contains(owner.ref())) {
          shown = "[" + owner.ref() + "]";
        }
      }
      if (shown == null && lines[i].isBlank() && afterRef) {
        blanks++;
        continue;
      }
      if (shown != null && afterRef) {
        out.setLength(out.length() - 1);
        out.append(' ').append(shown).append('\n');
        blanks = 0;
        continue;
      }
      out.append("\n".repeat(blanks));
      blanks = 0;
      out.append(shown == null ? lines[i] : shown).append('\n');
      afterRef = shown != null;
    }
    out.append("\n".repeat(blanks));
    if (out.length() > 0) {
      out.setLength(out.length() - 1);
    }
    // A record's lines left out leave the blank lines around them: one is enough.
    return BLANK_RUN.matcher(out).replaceAll("\n\n");
  }

  private static final java.util.regex.Pattern BLANK_RUN =
      java.util.regex.Pattern.compile("\n{3,}");

  /** Page events belong to the observation's first page; its continuations do not repeat them. */
  static boolean firstPage(ObservationPage page) {
    return page.elementOffset() == 0 && page.textOffset() == 0;
  }

  static void element(StringBuilder b, Observation.ObservedElement e, String indent) {
    element(b, e, indent, "");
  }

  /** One element's line; {@code afterName} follows its name (a record's line of other text). */
  static void element(
      StringBuilder b, Observation.ObservedElement e, String indent, String afterName) {
    b.append(indent).append('[').append(e.ref()).append("] ").append(e.kind());
    if (e.inputType() != null && !e.kind().endsWith(":" + e.inputType())) {
      b.append(" input=").append(e.inputType());
    }
    if (e.pagination()) {
      b.append(" pagination");
    }
    if (e.disabled()) {
      b.append(" disabled");
    }
    if (e.section().startsWith("frame ")) {
      b.append(" in ").append(e.section());
    }
    if (e.covered()) {
      b.append(" covered");
    }
    b.append(" — ").append(e.name().isEmpty() ? "(unnamed)" : e.name()).append(afterName);
    if (!e.icon().isEmpty()) {
      b.append(" (icon: ").append(e.icon()).append(')');
    }
    if (e.name().isEmpty() && !e.hint().isEmpty()) {
      b.append(" (not its name; beside it: \"").append(e.hint()).append("\")");
    }
    state(b, e.state());
    b.append('\n');
  }

  /** What a control shows: {@code = "value"} or its chosen options, then its flags. */
  private static void state(StringBuilder b, ElementState state) {
    if (state.value() != null) {
      b.append(" = \"").append(state.value()).append('"');
      if (state.valueCut()) {
        b.append(" (")
            .append(String.format(java.util.Locale.ROOT, "%,d", state.valueChars()))
            .append(" chars; the first ")
            .append(state.value().length())
            .append(" shown)");
      }
    } else if (!state.options().isEmpty()) {
      b.append(" = ");
      for (int i = 0; i < state.options().size(); i++) {
        b.append(i == 0 ? "" : ", ").append('"').append(state.options().get(i)).append('"');
      }
    }
    if (state.flags().isEmpty()) {
      return;
    }
    b.append(" (");
    for (int i = 0; i < state.flags().size(); i++) {
      String flag = state.flags().get(i);
      b.append(i == 0 ? "" : ", ").append(flag);
      if (flag.equals("invalid") && !state.message().isEmpty()) {
        b.append(": \"").append(state.message()).append('"');
      }
    }
    b.append(')');
  }

  /** The element on this page that stands for the record and whose name is its title. */
  static java.util.Optional<Observation.ObservedElement> titledBy(
      Observation.Group g, ObservationPage page) {
    return page.elements().stream()
        .filter(e -> e.ref().equals(g.target()) && !g.title().isEmpty())
        .filter(e -> e.name().equals(g.title()))
        .findFirst();
  }

  /** The groups with at least one element on this page, in order of first appearance. */
  static List<Observation.Group> groupsOf(ObservationPage page) {
    Set<String> refs = new LinkedHashSet<>();
    page.elements()
        .forEach(
            e -> {
              if (e.group() != null) {
                refs.add(e.group());
              }
            });
    return page.observation().groups().stream().filter(g -> refs.contains(g.ref())).toList();
  }

  static String text(Transition t, ObservationPage page, PageFence fence) {
    Transition.Metrics m = t.metrics();
    return "Transition "
        + t.id()
        + ": "
        + t.outcome().name().toLowerCase()
        + " ("
        + m.durationMs()
        + "ms total, "
        + (m.environmentMs() == 0
            ? ""
            : m.environmentMs() + "ms waiting for the browser to be ready, ")
        + m.actionMs()
        + "ms action, "
        + m.observationMs()
        + "ms observation)\n\n"
        + text(page, fence);
  }

  /**
   * Which tab the observation is of and how many there are; with more than one, each other tab on a
   * line of its own.
   */
  private static void tabs(StringBuilder head, StringBuilder b, Observation o) {
    if (o.tabs().isEmpty()) {
      return;
    }
    dev.periscope.api.browser.PageTab current =
        o.tabs().stream()
            .filter(dev.periscope.api.browser.PageTab::active)
            .findFirst()
            .orElse(null);
    head.append("Tab: ")
        .append(current == null ? "?" : String.valueOf(current.id()))
        .append(" of ")
        .append(o.tabs().size());
    if (o.tabs().size() == 1) {
      head.append('\n');
      return;
    }
    head.append(" (refs are this tab's; browser_tabs select switches)\n");
    for (dev.periscope.api.browser.PageTab t : o.tabs()) {
      if (!t.active()) {
        b.append("  tab ")
            .append(t.id())
            .append(": ")
            .append(t.title().isEmpty() ? "(untitled)" : t.title())
            .append(" - ")
            .append(t.url())
            .append('\n');
      }
    }
  }
}
