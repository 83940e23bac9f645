package dev.periscope.browser.tools;

import dev.periscope.api.browser.ElementState;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.Transition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How observation pages and transitions read to clients that hand a model structured content rather
 * than the text ({@link Rendering} writes the text): the same, without defaults.
 */
final class StructuredRendering {
  private StructuredRendering() {}

  /**
   * One element as structured content: its ref, role and name, its kind where that says more than
   * its role (an input's type, a clickable's tag), then only what is not a default (no {@code
   * false} flags, no empty strings, no section {@code main}; an element with neither role nor kind
   * is a plain link). Its rank is its place in the list.
   */
  static Map<String, Object> json(Observation.ObservedElement e) {
    Map<String, Object> em = new LinkedHashMap<>();
    em.put("ref", e.ref());
    if (!e.role().equals(roleOfTag(e.kind()))) {
      em.put("kind", e.kind());
    }
    // A plain link, the commonest element of a page, says neither: it is the default.
    if (!e.role().equals("link") || em.containsKey("kind")) {
      em.put("role", e.role());
    }
    em.put("name", e.name());
    if (!e.hint().isEmpty()) {
      em.put("hint", e.hint());
    }
    if (!e.icon().isEmpty()) {
      em.put("icon", e.icon());
    }
    if (e.inputType() != null && !e.kind().equals("input:" + e.inputType())) {
      em.put("input_type", e.inputType());
    }
    ElementState state = e.state();
    if (!state.flags().isEmpty()) {
      em.put("state", String.join(", ", state.flags()));
    }
    if (state.value() != null) {
      em.put("value", state.value());
      if (state.valueCut()) {
        em.put("value_chars", state.valueChars());
      }
    }
    if (!state.options().isEmpty()) {
      em.put("options", state.options());
    }
    if (!state.message().isEmpty()) {
      em.put("message", state.message());
    }
    if (e.disabled()) {
      em.put("disabled", true);
    }
    if (e.covered()) {
      em.put("covered", true);
    }
    if (e.ariaHidden()) {
      em.put("aria_hidden", true);
    }
    if (!e.section().equals("main")) {
      em.put("section", e.section());
    }
    if (e.pagination()) {
      em.put("pagination", true);
    }
    if (e.group() != null) {
      em.put("group", e.group());
    }
    return em;
  }

  /** The role an element of this kind has, which its kind then need not say. */
  private static String roleOfTag(String kind) {
    return switch (kind) {
      case "a" -> "link";
      case "button", "summary" -> "button";
      case "select" -> "combobox";
      case "textarea", "input:text" -> "textbox";
      case "input:checkbox" -> "checkbox";
      case "input:radio" -> "radio";
      default -> "";
    };
  }

  /**
   * The page as structured content, for clients that hand a model this rather than the text: what
   * the text says, without defaults ({@code 0}, {@code false}, empty lists, status 200), its text
   * with refs in place of what the elements and records say. The digest a program may compare is in
   * the journal and the Java API ({@link Observation#digest()}), not here: a model has no use for
   * it.
   */
  static Map<String, Object> json(ObservationPage page) {
    Observation o = page.observation();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", o.id());
    m.put("environment_id", o.environmentId());
    // The session's first environment, and its first tab alone, are the defaults.
    if (o.generation() != 1) {
      m.put("generation", o.generation());
    }
    boolean firstTabAlone = o.tabs().size() <= 1 && o.pageId().equals("page-1");
    if (!firstTabAlone) {
      m.put("page_id", o.pageId());
    }
    m.put("revision", o.revision());
    m.put("url", o.url());
    m.put("title", o.title());
    // Only an error's status, as the text says it.
    if (o.status() >= 400) {
      m.put("status", o.status());
    }
    if (!firstTabAlone) {
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
    m.put("text", Rendering.withRefs(page));
    if (page.textOffset() > 0) {
      m.put("text_offset", page.textOffset());
    }
    if (page.textTruncated() && page.mode().textChars > 0) {
      m.put("text_truncated", true);
    }
    if (o.totalTextChars() != page.textEnd() || page.textOffset() > 0) {
      m.put("total_text_chars", o.totalTextChars());
    }
    List<Object> elements = new ArrayList<>();
    for (Observation.ObservedElement e : page.elements()) {
      elements.add(json(e));
    }
    m.put("elements", elements);
    // A record that its title link stands for is called by that element's name, as the text
    // calls it on that element's line: its title_ref, then its line of other text as its detail.
    // Another record is called by its label.
    List<Object> groups = new ArrayList<>();
    for (Observation.Group g : Rendering.groupsOf(page)) {
      Map<String, Object> gm = new LinkedHashMap<>();
      gm.put("ref", g.ref());
      if (Rendering.titledBy(g, page).isPresent()) {
        gm.put("title_ref", g.target());
        if (!g.detail().isEmpty()) {
          gm.put("detail", g.detail());
        }
      } else {
        gm.put("label", g.label());
      }
      groups.add(gm);
    }
    if (!groups.isEmpty()) {
      m.put("groups", groups);
    }
    if (page.elementOffset() > 0) {
      m.put("element_offset", page.elementOffset());
    }
    if (page.elementsTruncated()) {
      m.put("elements_truncated", true);
    }
    m.put("total_elements", o.totalElements());
    if (page.continuation() != null) {
      m.put("continuation", page.continuation());
    }
    if (Rendering.firstPage(page) && !o.pageEvents().isEmpty()) {
      m.put("page_events", o.pageEvents());
    }
    return m;
  }

  static Map<String, Object> json(Transition t) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", t.id());
    // An open's URL is the observation's, unless it was redirected.
    Map<String, Object> action = new LinkedHashMap<>(t.action());
    if (action.containsKey("url") && String.valueOf(action.get("url")).equals(t.after().url())) {
      action.remove("url");
    }
    m.put("action", action);
    // A result that shows a transition is of one that succeeded: only another outcome is said.
    if (t.outcome() != Transition.Outcome.SUCCEEDED) {
      m.put("outcome", t.outcome().name().toLowerCase());
    }
    // What the result's own observation says (its id, the page's text and element totals) is not
    // said again.
    if (t.beforeObservationId() != null) {
      m.put("before_observation_id", t.beforeObservationId());
    }
    Transition.Metrics x = t.metrics();
    Map<String, Object> metrics = new LinkedHashMap<>();
    metrics.put("duration_ms", x.durationMs());
    if (x.environmentMs() != 0) {
      metrics.put("environment_ms", x.environmentMs());
    }
    metrics.put("action_ms", x.actionMs());
    metrics.put("observation_ms", x.observationMs());
    m.put("metrics", metrics);
    // When it began (its end is that and its duration).
    m.put("started_at", t.startedAt().truncatedTo(java.time.temporal.ChronoUnit.MILLIS).toString());
    return m;
  }
}
