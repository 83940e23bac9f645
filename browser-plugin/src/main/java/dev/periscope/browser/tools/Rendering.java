package dev.periscope.browser.tools;

import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.Transition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** How observations and transitions read to the model (text) and to clients (structured JSON). */
final class Rendering {
  private Rendering() {}

  static String text(Observation o) {
    StringBuilder b = new StringBuilder();
    b.append("Observation ").append(o.id()).append(" (revision ").append(o.revision()).append(")\n");
    b.append("URL: ").append(o.url()).append('\n');
    b.append("Title: ").append(o.title().isEmpty() ? "(untitled)" : o.title()).append('\n');
    int shown = o.elements().size();
    if (o.elementsTruncated()) {
      b.append("Interactive elements: ").append(shown).append(" shown; ").append(o.totalElements() - shown)
          .append(" not shown\n");
    } else {
      b.append("Interactive elements: ").append(shown).append(" of ").append(o.totalElements()).append('\n');
    }
    List<Observation.ObservedElement> ungrouped = o.elements().stream().filter(e -> e.group() == null).toList();
    if (ungrouped.isEmpty() && o.groups().isEmpty()) {
      b.append("  (none)\n");
    }
    ungrouped.forEach(e -> element(b, e, "  "));
    if (!o.groups().isEmpty()) {
      b.append("Records: ").append(o.groups().size()).append('\n');
      for (Observation.Group g : o.groups()) {
        b.append("  [").append(g.ref()).append("] ").append(g.label().isEmpty() ? "(untitled record)" : g.label())
            .append('\n');
        o.elements().stream().filter(e -> g.ref().equals(e.group())).forEach(e -> element(b, e, "    "));
      }
    }
    b.append('\n');
    if (o.text().isEmpty() && o.totalTextChars() > 0) {
      b.append("Page text: not included (").append(o.totalTextChars()).append(" chars available)");
    } else {
      b.append("Page text (1-").append(o.text().length()).append(" of ").append(o.totalTextChars()).append(" chars):\n");
      b.append(o.text());
    }
    return b.toString();
  }

  private static void element(StringBuilder b, Observation.ObservedElement e, String indent) {
    b.append(indent).append('[').append(e.ref()).append("] ").append(e.kind());
    if (e.disabled()) {
      b.append(" disabled");
    }
    b.append(" — ").append(e.name().isEmpty() ? "(unnamed)" : e.name()).append('\n');
  }

  static String text(Transition t) {
    Transition.Metrics m = t.metrics();
    return "Transition " + t.id() + ": " + t.outcome().name().toLowerCase() + " (" + m.durationMs() + "ms total, "
        + m.actionMs() + "ms action, " + m.observationMs() + "ms observation)\n\n" + text(t.after());
  }

  static Map<String, Object> json(Observation o) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", o.id());
    m.put("environment_id", o.environmentId());
    m.put("generation", o.generation());
    m.put("page_id", o.pageId());
    m.put("revision", o.revision());
    m.put("url", o.url());
    m.put("title", o.title());
    m.put("text", o.text());
    m.put("text_truncated", o.textTruncated());
    m.put("total_text_chars", o.totalTextChars());
    List<Object> elements = new ArrayList<>();
    for (Observation.ObservedElement e : o.elements()) {
      Map<String, Object> em = new LinkedHashMap<>();
      em.put("ref", e.ref());
      em.put("kind", e.kind());
      em.put("role", e.role());
      em.put("name", e.name());
      em.put("disabled", e.disabled());
      if (e.inputType() != null) {
        em.put("input_type", e.inputType());
      }
      em.put("priority", e.priority());
      if (e.group() != null) {
        em.put("group", e.group());
      }
      elements.add(em);
    }
    m.put("elements", elements);
    List<Object> groups = new ArrayList<>();
    for (Observation.Group g : o.groups()) {
      groups.add(Map.of("ref", g.ref(), "label", g.label(), "elements", g.elements()));
    }
    m.put("groups", groups);
    m.put("elements_truncated", o.elementsTruncated());
    m.put("total_elements", o.totalElements());
    m.put("digest", o.digest());
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
    m.put("action", t.action());
    m.put("started_at", t.startedAt().toString());
    m.put("finished_at", t.finishedAt().toString());
    return m;
  }
}
