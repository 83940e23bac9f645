package dev.periscope.api.browser;

/**
 * An element as the provider observed it. {@code target} is opaque to everyone but the provider;
 * {@code fingerprint} is what must still match when the element is acted on. {@code tier} ranks it (1 form
 * controls and buttons ... 5 repeated per-record links). Elements of one repeating record share a
 * {@code groupKey} (null when not in a record), which the runtime turns into a group ref.
 */
public record ProviderElement(
    String target, String fingerprint, String kind, String role, String name, boolean disabled, String inputType,
    int tier, String groupKey, String groupLabel) {

  /** An element outside any record. */
  public ProviderElement(
      String target, String fingerprint, String kind, String role, String name, boolean disabled, String inputType,
      int tier) {
    this(target, fingerprint, kind, role, name, disabled, inputType, tier, null, null);
  }
}
