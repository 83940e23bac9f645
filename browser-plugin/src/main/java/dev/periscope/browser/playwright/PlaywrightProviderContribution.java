package dev.periscope.browser.playwright;

import dev.periscope.api.browser.spi.BrowserProvider;
import dev.periscope.api.browser.spi.BrowserProviderContribution;
import jakarta.inject.Inject;
import org.pf4j.Extension;

/**
 * Contributes the Playwright provider through the same extension point any other plugin would use.
 */
@Extension
public final class PlaywrightProviderContribution implements BrowserProviderContribution {
  private final PlaywrightProvider provider;

  @Inject
  public PlaywrightProviderContribution(PlaywrightProvider provider) {
    this.provider = provider;
  }

  @Override
  public BrowserProvider provider() {
    return provider;
  }
}
