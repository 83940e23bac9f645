package dev.periscope.api.browser;

/** What a provider can do. Flags must be truthful: the runtime selects providers by them. */
public enum Capability {
  SCREENSHOT,
  CHECKPOINT,
  EXTRACTION,
  MULTIPLE_PAGES
}
