package dev.periscope.api.browser.spi;

import dev.periscope.api.browser.ElementState;

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
 * {@code state} is what it shows a person beyond its name (never null: {@link ElementState#NONE});
 * {@code icon} is, for an element with no name, what its icon depicts ({@code "trash"}), a hint and
 * never its name ({@code ""} when none); {@code ariaHidden} says it sits in content hidden from
 * assistive technology that a person sees, and is named by what it shows (all three since host API
 * 2.7.0).
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
    boolean covered,
    ElementState state,
    String icon,
    boolean ariaHidden) {
  public ProviderElement {
    state = state == null ? ElementState.NONE : state;
    icon = icon == null ? "" : icon;
  }

  /** An element with no state, icon or aria-hidden mark (host API 2.6.0's). */
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
      String groupLabel,
      String hint,
      boolean covered) {
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
        hint,
        covered,
        ElementState.NONE,
        "",
        false);
  }

  /** This element with every text a page could have written passed through {@code f}. */
  public ProviderElement mapText(java.util.function.UnaryOperator<String> f) {
    return new ProviderElement(
        target,
        fingerprint,
        f.apply(kind),
        f.apply(role),
        f.apply(name),
        disabled,
        inputType == null ? null : f.apply(inputType),
        tier,
        pagination,
        f.apply(section),
        groupKey == null ? null : f.apply(groupKey),
        groupLabel == null ? null : f.apply(groupLabel),
        f.apply(hint),
        covered,
        state.mapText(f),
        f.apply(icon),
        ariaHidden);
  }

  /** This element with another target and section (an element of a frame, as the page lists it). */
  public ProviderElement inFrame(String target, String section, String groupKey) {
    return new ProviderElement(
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
        hint,
        covered,
        state,
        icon,
        ariaHidden);
  }

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
