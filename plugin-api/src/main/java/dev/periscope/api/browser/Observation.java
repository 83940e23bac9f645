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
 * page shows, or null (since host API 2.5.0).
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
    PageChallenge challenge) {
  public Observation {
    elements = List.copyOf(elements);
    groups = List.copyOf(groups);
    pageEvents = List.copyOf(pageEvents);
    tabs = tabs == null ? List.of() : List.copyOf(tabs);
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
        null);
  }

  /**
   * One element: its ref, kind ({@code button}, {@code a}, {@code input:text}), ARIA role,
   * accessible name, and its tier ({@code priority}), whether it pages the listing, its section
   * ({@code main}, {@code navigation}, {@code footer}, {@code sidebar}) and the ref of the record
   * group it belongs to (null when none). {@code hint} is, for a field with no accessible name,
   * what a user sees beside it, never its name ({@code ""} when none); {@code covered} says another
   * element covers its centre.
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
      boolean covered) {}

  /** A repeating record: its group ref, its label, and the refs of its elements. */
  public record Group(String ref, String label, List<String> elements) {
    public Group {
      elements = List.copyOf(elements);
    }
  }
}
