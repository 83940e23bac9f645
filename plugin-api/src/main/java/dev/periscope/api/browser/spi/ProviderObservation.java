package dev.periscope.api.browser.spi;

import java.util.List;

/**
 * A page as the provider observed it: text and elements already ranked, filtered to the requested
 * tiers and cut inside the browser, with the totals the page held ({@code totalElements} counts
 * every visible element) and whether the element list was cut, so a caller can tell what it did not
 * see. {@code pageEvents} says, in one short line each, what the page did since the previous
 * observation that nobody asked for and the provider stopped or answered: a dialog dismissed, a
 * page or download the page started on its own and that was closed. {@code status} is the HTTP
 * status of the main document's response ({@code 0} when there was none or it is not known): an
 * error status from the site itself is a page like any other, shown with its status. {@code dialog}
 * is the dialog an action opened and that waits for an answer, or null: while it is open the page
 * cannot be looked into, and the observation holds only its URL and the dialog. {@code tabs} are
 * the environment's tabs, the observed one marked active (empty from a provider that keeps one
 * page). {@code challenge} is the bot wall or challenge the page shows, or null (since host API
 * 2.5.0).
 *
 * <p>Immutable and thread-safe.
 */
public record ProviderObservation(
    String url,
    String title,
    String text,
    int totalTextChars,
    List<ProviderElement> elements,
    int totalElements,
    boolean elementsTruncated,
    List<String> pageEvents,
    int status,
    dev.periscope.api.browser.PageDialog dialog,
    List<dev.periscope.api.browser.PageTab> tabs,
    ProviderChallenge challenge,
    List<ProviderRecord> records,
    List<ProviderTextLine> textLines) {
  public ProviderObservation {
    elements = List.copyOf(elements);
    pageEvents = List.copyOf(pageEvents);
    tabs = tabs == null ? List.of() : List.copyOf(tabs);
    records = records == null ? List.of() : List.copyOf(records);
    textLines = textLines == null ? List.of() : List.copyOf(textLines);
  }

  /** An observation that names no records or text lines (host API 2.6.0's). */
  public ProviderObservation(
      String url,
      String title,
      String text,
      int totalTextChars,
      List<ProviderElement> elements,
      int totalElements,
      boolean elementsTruncated,
      List<String> pageEvents,
      int status,
      dev.periscope.api.browser.PageDialog dialog,
      List<dev.periscope.api.browser.PageTab> tabs,
      ProviderChallenge challenge) {
    this(
        url,
        title,
        text,
        totalTextChars,
        elements,
        totalElements,
        elementsTruncated,
        pageEvents,
        status,
        dialog,
        tabs,
        challenge,
        List.of(),
        List.of());
  }

  /** This observation with its records and the text lines that are its elements' and records'. */
  public ProviderObservation withRecords(
      List<ProviderRecord> records, List<ProviderTextLine> textLines) {
    return new ProviderObservation(
        url,
        title,
        text,
        totalTextChars,
        elements,
        totalElements,
        elementsTruncated,
        pageEvents,
        status,
        dialog,
        tabs,
        challenge,
        records,
        textLines);
  }

  /** An observation with no challenge recognised (host API 2.4.0's). */
  public ProviderObservation(
      String url,
      String title,
      String text,
      int totalTextChars,
      List<ProviderElement> elements,
      int totalElements,
      boolean elementsTruncated,
      List<String> pageEvents,
      int status,
      dev.periscope.api.browser.PageDialog dialog,
      List<dev.periscope.api.browser.PageTab> tabs) {
    this(
        url,
        title,
        text,
        totalTextChars,
        elements,
        totalElements,
        elementsTruncated,
        pageEvents,
        status,
        dialog,
        tabs,
        null);
  }

  /** This observation with {@code challenge} (null for none). */
  public ProviderObservation withChallenge(ProviderChallenge challenge) {
    return new ProviderObservation(
        url,
        title,
        text,
        totalTextChars,
        elements,
        totalElements,
        elementsTruncated,
        pageEvents,
        status,
        dialog,
        tabs,
        challenge,
        records,
        textLines);
  }

  /** An observation of a provider that keeps one page. */
  public ProviderObservation(
      String url,
      String title,
      String text,
      int totalTextChars,
      List<ProviderElement> elements,
      int totalElements,
      boolean elementsTruncated,
      List<String> pageEvents,
      int status,
      dev.periscope.api.browser.PageDialog dialog) {
    this(
        url,
        title,
        text,
        totalTextChars,
        elements,
        totalElements,
        elementsTruncated,
        pageEvents,
        status,
        dialog,
        List.of());
  }

  /** This observation as one of {@code tabs}. */
  public ProviderObservation withTabs(List<dev.periscope.api.browser.PageTab> tabs) {
    return new ProviderObservation(
        url,
        title,
        text,
        totalTextChars,
        elements,
        totalElements,
        elementsTruncated,
        pageEvents,
        status,
        dialog,
        tabs,
        challenge,
        records,
        textLines);
  }

  /** An observation with no dialog waiting. */
  public ProviderObservation(
      String url,
      String title,
      String text,
      int totalTextChars,
      List<ProviderElement> elements,
      int totalElements,
      boolean elementsTruncated,
      List<String> pageEvents,
      int status) {
    this(
        url,
        title,
        text,
        totalTextChars,
        elements,
        totalElements,
        elementsTruncated,
        pageEvents,
        status,
        null);
  }

  /** The page while {@code dialog} waits for an answer: its URL, its events and the dialog. */
  public static ProviderObservation awaiting(
      String url, dev.periscope.api.browser.PageDialog dialog, List<String> pageEvents) {
    return new ProviderObservation(url, "", "", 0, List.of(), 0, false, pageEvents, 0, dialog);
  }

  /** An observation with no page events to report. */
  public ProviderObservation(
      String url,
      String title,
      String text,
      int totalTextChars,
      List<ProviderElement> elements,
      int totalElements,
      boolean elementsTruncated) {
    this(
        url, title, text, totalTextChars, elements, totalElements, elementsTruncated, List.of(), 0);
  }

  /**
   * An observation whose element list was cut exactly when it holds fewer elements than the page.
   */
  public ProviderObservation(
      String url,
      String title,
      String text,
      int totalTextChars,
      List<ProviderElement> elements,
      int totalElements) {
    this(
        url,
        title,
        text,
        totalTextChars,
        elements,
        totalElements,
        elements.size() < totalElements,
        List.of(),
        0);
  }
}
