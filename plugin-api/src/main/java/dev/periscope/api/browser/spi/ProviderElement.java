package dev.periscope.api.browser.spi;

/**
 * An element as the provider observed it. {@code target} is opaque to everyone but the provider;
 * {@code fingerprint} is what must still match when the element is acted on, and it leaves out
 * tier, section and group, so a record moving within a list keeps its refs. {@code tier} ranks it:
 * 1 form controls, buttons and pagination; 2 site navigation; 3 the title link of a repeating
 * record; 4 ordinary body links; 5 repeated per-record links, footer and sidebar links. Elements of
 * one repeating record share a {@code groupKey} (null when not in a record), which the runtime
 * turns into a group ref. {@code hint} is, for a field with no accessible name, what a user sees
 * beside it (a preceding label-like text, the placeholder), never its name ({@code ""} when none).
 * {@code covered} says another element covers its centre, so a click there would land on that.
 *
 * <p>Immutable and thread-safe.
 */
public record ProviderElement(
    String target,
    String fingerprint,
    String kind,
    String role,
    String name,
    boolean disabled,
    String inputType,
    int tier,
    boolean pagination,
    String section,
    String groupKey,
    String groupLabel,
    String hint,
    boolean covered) {

  /** An element without a hint, not covered. */
  public ProviderElement(
      String target,
      String fingerprint,
      String kind,
      String role,
      String name,
      boolean disabled,
      String inputType,
      int tier,
      boolean pagination,
      String section,
      String groupKey,
      String groupLabel) {
    this(
        target,
        fingerprint,
        kind,
        role,
        name,
        disabled,
        inputType,
        tier,
        pagination,
        section,
        groupKey,
        groupLabel,
        "",
        false);
  }

  /** An element outside any record. */
  public ProviderElement(
      String target,
      String fingerprint,
      String kind,
      String role,
      String name,
      boolean disabled,
      String inputType,
      int tier) {
    this(
        target,
        fingerprint,
        kind,
        role,
        name,
        disabled,
        inputType,
        tier,
        false,
        "main",
        null,
        null);
  }

  /** An element of a record. */
  public ProviderElement(
      String target,
      String fingerprint,
      String kind,
      String role,
      String name,
      boolean disabled,
      String inputType,
      int tier,
      String groupKey,
      String groupLabel) {
    this(
        target,
        fingerprint,
        kind,
        role,
        name,
        disabled,
        inputType,
        tier,
        false,
        "main",
        groupKey,
        groupLabel);
  }
}
