package dev.periscope.browser.tools;

import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.Transition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How observation pages and transitions read to the model (text) and to clients (structured JSON).
 */
final class Rendering {
  private Rendering() {}

  static String text(ObservationPage page) {
    Observation o = page.observation();
    StringBuilder b = new StringBuilder();
    b.append("Observation ")
        .append(o.id())
        .append(" (revision ")
        .append(o.revision())
        .append(", mode ")
        .append(page.mode().id())
        .append(")\n");
    b.append("URL: ").append(o.url()).append('\n');
    if (o.status() >= 400) {
      b.append("HTTP status: ").append(o.status()).append(" (the site answered with an error)\n");
    }
    b.append("Title: ").append(o.title().isEmpty() ? "(untitled)" : o.title()).append('\n');
    tabs(b, o);
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
      b.append(
          "\n  The page runs nothing until it is answered: browser_dialog(accept=true|false"
              + (o.dialog().type().equals("prompt") ? ", prompt_text" : "")
              + ").\n");
    }
    if (o.challenge() != null) {
      challenge(b, o.challenge());
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
        List<Observation.ObservedElement> members =
            page.elements().stream().filter(e -> g.ref().equals(e.group())).toList();
        // A record titled by its first element (a title link) is that element's line: the title
        // is shown once.
        boolean titled = !g.label().isEmpty() && members.get(0).name().equals(g.label());
        if (titled) {
          element(b, members.get(0), "  [" + g.ref() + "] ");
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
          .append(" chars; a line that is an element above shows its ref):\n")
          .append(withRefs(page.text(), page.elements()));
    }
    if (page.continuation() != null) {
      b.append("\n\nMore remains. Call browser_observe_next with continuation \"")
          .append(page.continuation())
          .append("\".");
    } else if ((page.textTruncated() && page.mode().textChars > 0) || page.elementsTruncated()) {
      b.append(
          "\n\nThe page holds more than this observation retained; re-observe with a larger budget or another"
              + " mode.");
    }
    return b.toString();
  }

  private static void challenge(StringBuilder b, dev.periscope.api.browser.PageChallenge c) {
    String what = c.describe();
    b.append("Challenge: ").append(Character.toUpperCase(what.charAt(0))).append(what.substring(1));
    if (!c.frame().isEmpty()) {
      b.append(" in frame ").append(c.frame());
    }
    if (c.ref() != null) {
      b.append(" (").append(c.ref()).append(')');
    }
    b.append(
        switch (c.kind()) {
          case dev.periscope.api.browser.PageChallenge.INTERSTITIAL ->
              ".\n  Nothing on this page can be acted on until it passes: wait and observe again, or"
                  + " hand the page to a person.\n";
          case dev.periscope.api.browser.PageChallenge.LOGIN_WALL ->
              ".\n  What it covers cannot be acted on: sign in through it first, or hand the page to"
                  + " a person.\n";
          default ->
              ".\n  It waits for a person: actions on it and on what it guards fail"
                  + " BROWSER_CHALLENGE until it is solved.\n";
        });
  }

  /**
   * The page text with each line that reads exactly as the name of one element listed above
   * replaced by that element's ref, so that what the element list shows is not shown twice. Names
   * shared by several listed elements, and short ones, stay as text.
   */
  static String withRefs(String text, List<Observation.ObservedElement> elements) {
    Map<String, String> refs = new java.util.HashMap<>();
    Set<String> shared = new java.util.HashSet<>();
    for (Observation.ObservedElement e : elements) {
      String name = e.name().strip();
      if (name.length() >= MIN_REPLACED_CHARS && refs.putIfAbsent(name, e.ref()) != null) {
        shared.add(name);
      }
    }
    shared.forEach(refs::remove);
    if (refs.isEmpty()) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length());
    for (String line : text.split("\n", -1)) {
      String ref = refs.get(line.strip());
      out.append(ref == null ? line : "[" + ref + "]").append('\n');
    }
    out.setLength(out.length() - 1);
    return out.toString();
  }

  /** A name shorter than this ("Next", "1") reads no longer than its ref. */
  private static final int MIN_REPLACED_CHARS = 8;

  /** Page events belong to the observation's first page; its continuations do not repeat them. */
  private static boolean firstPage(ObservationPage page) {
    return page.elementOffset() == 0 && page.textOffset() == 0;
  }

  /** One element of {@code o} as structured content. */
  static Map<String, Object> json(Observation o, Observation.ObservedElement e) {
    Map<String, Object> em = new LinkedHashMap<>();
    em.put("ref", e.ref());
    em.put("kind", e.kind());
    em.put("role", e.role());
    em.put("name", e.name());
    em.put("disabled", e.disabled());
    if (!e.hint().isEmpty()) {
      em.put("hint", e.hint());
    }
    em.put("covered", e.covered());
    if (e.inputType() != null) {
      em.put("input_type", e.inputType());
    }
    em.put("section", e.section());
    em.put("priority", e.priority());
    em.put("pagination", e.pagination());
    if (e.group() != null) {
      em.put("group", e.group());
      o.groups().stream()
          .filter(g -> g.ref().equals(e.group()))
          .findFirst()
          .ifPresent(g -> em.put("group_label", g.label()));
    }
    return em;
  }

  static void element(StringBuilder b, Observation.ObservedElement e, String indent) {
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
    b.append(" — ").append(e.name().isEmpty() ? "(unnamed)" : e.name());
    if (e.name().isEmpty() && !e.hint().isEmpty()) {
      b.append(" (not its name; beside it: \"").append(e.hint()).append("\")");
    }
    b.append('\n');
  }

  /** The groups with at least one element on this page, in order of first appearance. */
  private static List<Observation.Group> groupsOf(ObservationPage page) {
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

  static String text(Transition t, ObservationPage page) {
    Transition.Metrics m = t.metrics();
    return "Transition "
        + t.id()
        + ": "
        + t.outcome().name().toLowerCase()
        + " ("
        + m.durationMs()
        + "ms total, "
        + m.actionMs()
        + "ms action, "
        + m.observationMs()
        + "ms observation)\n\n"
        + text(page);
  }

  /**
   * Which tab the observation is of and how many there are; with more than one, each other tab on a
   * line of its own.
   */
  private static void tabs(StringBuilder b, Observation o) {
    if (o.tabs().isEmpty()) {
      return;
    }
    dev.periscope.api.browser.PageTab current =
        o.tabs().stream()
            .filter(dev.periscope.api.browser.PageTab::active)
            .findFirst()
            .orElse(null);
    b.append("Tab: ")
        .append(current == null ? "?" : String.valueOf(current.id()))
        .append(" of ")
        .append(o.tabs().size());
    if (o.tabs().size() == 1) {
      b.append('\n');
      return;
    }
    b.append(" (refs are this tab's; browser_tabs select switches)\n");
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

  static Map<String, Object> json(ObservationPage page) {
    Observation o = page.observation();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", o.id());
    m.put("environment_id", o.environmentId());
    m.put("generation", o.generation());
    m.put("page_id", o.pageId());
    m.put("revision", o.revision());
    m.put("url", o.url());
    m.put("title", o.title());
    m.put("status", o.status());
    if (!o.tabs().isEmpty()) {
      List<Object> tabs = new ArrayList<>();
      for (dev.periscope.api.browser.PageTab t : o.tabs()) {
        Map<String, Object> tab = new LinkedHashMap<>();
        tab.put("id", t.id());
        tab.put("url", t.url());
        tab.put("title", t.title());
        tab.put("active", t.active());
        tabs.add(tab);
      }
      m.put("tabs", tabs);
    }
    if (o.dialog() != null) {
      dev.periscope.api.browser.PageDialog d = o.dialog().shown();
      Map<String, Object> dialog = new LinkedHashMap<>();
      dialog.put("type", d.type());
      dialog.put("message", d.message());
      dialog.put("default_prompt", d.defaultPrompt());
      m.put("dialog", dialog);
    }
    if (o.challenge() != null) {
      dev.periscope.api.browser.PageChallenge c = o.challenge();
      Map<String, Object> challenge = new LinkedHashMap<>();
      challenge.put("kind", c.kind());
      challenge.put("vendor", c.vendor());
      challenge.put("frame", c.frame());
      challenge.put("ref", c.ref());
      m.put("challenge", challenge);
    }
    m.put("mode", page.mode().id());
    m.put("text", page.text());
    m.put("text_offset", page.textOffset());
    m.put("text_truncated", page.textTruncated() && page.mode().textChars > 0);
    m.put("total_text_chars", o.totalTextChars());
    List<Object> elements = new ArrayList<>();
    for (Observation.ObservedElement e : page.elements()) {
      elements.add(json(o, e));
    }
    m.put("elements", elements);
    List<Object> groups = new ArrayList<>();
    for (Observation.Group g : groupsOf(page)) {
      groups.add(Map.of("ref", g.ref(), "label", g.label(), "elements", g.elements()));
    }
    m.put("groups", groups);
    m.put("element_offset", page.elementOffset());
    m.put("elements_truncated", page.elementsTruncated());
    m.put("total_elements", o.totalElements());
    if (page.continuation() != null) {
      m.put("continuation", page.continuation());
    }
    m.put("digest", o.digest());
    if (firstPage(page) && !o.pageEvents().isEmpty()) {
      m.put("page_events", o.pageEvents());
    }
    return m;
  }

  static Map<String, Object> json(Transition t) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", t.id());
    m.put("action", t.action());
    m.put("outcome", t.outcome().name().toLowerCase());
    m.put("before_observation_id", t.beforeObservationId());
    m.put("after_observation_id", t.after().id());
    Transition.Metrics x = t.metrics();
    Map<String, Object> metrics = new LinkedHashMap<>();
    metrics.put("duration_ms", x.durationMs());
    metrics.put("action_ms", x.actionMs());
    metrics.put("observation_ms", x.observationMs());
    metrics.put("text_chars", x.textChars());
    metrics.put("element_count", x.elementCount());
    metrics.put("text_truncated", x.textTruncated());
    metrics.put("elements_truncated", x.elementsTruncated());
    m.put("metrics", metrics);
    m.put("started_at", t.startedAt().toString());
    m.put("finished_at", t.finishedAt().toString());
    return m;
  }
}
