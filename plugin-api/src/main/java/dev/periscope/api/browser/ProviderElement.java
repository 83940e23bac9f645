package dev.periscope.api.browser;

/**
 * An element as the provider observed it. {@code target} is opaque to everyone but the provider;
 * {@code fingerprint} is what must still match when the element is acted on. {@code tier} ranks it (1 form
 * controls and buttons ... 5 repeated per-record links).
 */
public record ProviderElement(
    String target, String fingerprint, String kind, String role, String name, boolean disabled, String inputType, int tier) {}
