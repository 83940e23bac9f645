package dev.periscope.api.browser.spi;

/** What a provider can do. Flags must be truthful: the runtime selects providers by them. */
public enum Capability {
  SCREENSHOT,
  CHECKPOINT,
  EXTRACTION,
  MULTIPLE_PAGES,
  /**
   * The provider enforces {@link EnvironmentPolicy#network()} on every connection its browser
   * makes. Without it, the runtime opens environments of this provider only for a project in {@link
   * NetworkPolicy.Mode#UNRESTRICTED} mode.
   */
  NETWORK_POLICY
}
