package dev.periscope.api.browser;

import java.util.List;

/**
 * A page as the model sees it. The runtime assigns the ids: environment, generation, page,
 * observation id, revision, digest, element refs ({@code e1}, {@code e2}, ...) in ranked order and
 * group refs ({@code g1}, ...) in order of first appearance. Only the newest observation of an
 * environment is addressable: acting on an older one fails {@code BROWSER_STALE_REFERENCE}. {@code
 * pageEvents} lists what the page did on its own since the previous observation and the provider
 * answered (dialogs dismissed, pages and downloads it started and that were closed or cancelled).
 * {@code status} is the HTTP status of the main document ({@code 0} when not known). {@code dialog}
 * is the dialog that waits for an answer, or null. {@code tabs} are the environment's tabs, this
 * observation's marked active (empty when the provider keeps one page); {@code pageId} names the
 * observed tab ({@code page-1} for the first). {@code challenge} is the bot wall or challenge the
 * page shows, or null (since host API 2.5.0). {@code textLines} are the lines of {@code text} that
 * are a listed element's or record's own words, so that a rendering can show a ref in their place
 * (since host API 2.7.0).
 */
public record Observation(
    String id,
    String environmentId,
    int generation,
    String pageId,
    int revision,
    String url,
    String title,
    String text,
    boolean textTruncated,
    int totalTextChars,
    List<ObservedElement> elements,
    List<Group> groups,
    boolean elementsTruncated,
    int totalElements,
    String digest,
    List<String> pageEvents,
    int status,
    PageDialog dialog,
    List<PageTab> tabs,
    PageChallenge challenge,
    List<TextLine> textLines) {
  public Observation {
    elements = List.copyOf(elements);
    groups = List.copyOf(groups);
    pageEvents = List.copyOf(pageEvents);
    tabs = tabs == null ? List.of() : List.copyOf(tabs);
    textLines = textLines == null ? List.of() : List.copyOf(textLines);
  }

  /** An observation that marks no lines of its text (host API 2.6.0's). */
  public Observation(
      String id,
      String environmentId,
      int generation,
      String pageId,
      int revision,
      String url,
      String title,
      String text,
      boolean textTruncated,
      int totalTextChars,
      List<ObservedElement> elements,
      List<Group> groups,
      boolean elementsTruncated,
      int totalElements,
      String digest,
      List<String> pageEvents,
      int status,
      PageDialog dialog,
      List<PageTab> tabs,
      PageChallenge challenge) {
    this(
        id,
        environmentId,
        generation,
        pageId,
        revision,
        url,
        title,
        text,
        textTruncated,
        totalTextChars,
        elements,
        groups,
        elementsTruncated,
        totalElements,
        digest,
        pageEvents,
        status,
        dialog,
        tabs,
        challenge,
        List.of());
  }

  /** An observation with no challenge (host API 2.4.0's). */
  public Observation(
      String id,
      String environmentId,
      int generation,
      String pageId,
      int revision,
      String url,
      String title,
      String text,
      boolean textTruncated,
      int totalTextChars,
      List<ObservedElement> elements,
      List<Group> groups,
      boolean elementsTruncated,
      int totalElements,
      String digest,
      List<String> pageEvents,
      int status,
      PageDialog dialog,
      List<PageTab> tabs) {
    this(
        id,
        environmentId,
        generation,
        pageId,
        revision,
        url,
        title,
        text,
        textTruncated,
        totalTextChars,
        elements,
        groups,
        elementsTruncated,
        totalElements,
        digest,
        pageEvents,
        status,
        dialog,
        tabs,
        (PageChallenge) null);
  }

  /**
   * One element: its ref, kind ({@code button}, {@code a}, {@code input:text}), ARIA role,
   * accessible name, and its tier ({@code priority}), whether it pages the listing, its section
   * ({@code main}, {@code navigation}, {@code footer}, {@code sidebar}) and the ref of the record
   * group it belongs to (null when none). {@code hint} is, for a field with no accessible name,
   * what a user sees beside it, never its name ({@code ""} when none); {@code covered} says another
   * element covers its centre. {@code state} is what it shows beyond its name (checked, a field's
   * value, ...; never null), {@code icon} what the icon of an unnamed element depicts ({@code ""}
   * when none; a hint, never its name), and {@code ariaHidden} says it is in sight though hidden
   * from assistive technology (all three since host API 2.7.0).
   */
  public record ObservedElement(
      String ref,
      String kind,
      String role,
      String name,
      boolean disabled,
      String inputType,
      int priority,
      boolean pagination,
      String section,
      String group,
      String hint,
      boolean covered,
      ElementState state,
      String icon,
      boolean ariaHidden) {
    public ObservedElement {
      state = state == null ? ElementState.NONE : state;
      icon = icon == null ? "" : icon;
    }

    /** An element with no state, icon or aria-hidden mark (host API 2.6.0's). */
    public ObservedElement(
        String ref,
        String kind,
        String role,
        String name,
        boolean disabled,
        String inputType,
        int priority,
        boolean pagination,
        String section,
        String group,
        String hint,
        boolean covered) {
      this(
          ref,
          kind,
          role,
          name,
          disabled,
          inputType,
          priority,
          pagination,
          section,
          group,
          hint,
          covered,
          ElementState.NONE,
          "",
          false);
    }
  }

  /**
   * A repeating record: its group ref, its label ({@code title}, then {@code " · "} and {@code
   * detail} when it has one), and the refs of its elements. {@code title} is what it is called,
   * {@code detail} at most one short line of its other text ({@code ""} when none), and {@code
   * target} the ref of the element the group's ref stands for in an action (its title link, or its
   * only element), null when it has several and none stands for it (since host API 2.7.0).
   */
  public record Group(
      String ref, String label, List<String> elements, String title, String detail, String target) {
    public Group {
      elements = List.copyOf(elements);
      label = label == null ? "" : label;
      title = title == null ? label : title;
      detail = detail == null ? "" : detail;
    }

    /** A group known by its label alone (host API 2.6.0's). */
    public Group(String ref, String label, List<String> elements) {
      this(ref, label, elements, label, "", elements.size() == 1 ? elements.get(0) : null);
    }
  }

  /**
   * A line of the observation's text (numbered from 0) that is the own text of the element {@code
   * ref} or of the record {@code group} (either may be null; an element of a record carries both).
   * Since host API 2.7.0.
   */
  public record TextLine(int line, String ref, String group) {}
}
