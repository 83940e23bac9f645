package dev.periscope.browser.playwright;

import com.google.inject.name.Named;
import dev.periscope.api.browser.spi.BrowserProvider;
import dev.periscope.api.browser.spi.BrowserProviderContribution;
import jakarta.inject.Inject;
import org.pf4j.Extension;

/**
 * Contributes the cdp provider ({@link PlaywrightProvider#CDP_ID}): available once the project
 * names a running Chromium ({@code plugins.browser.cdp}), chosen with {@code
 * plugins.browser.provider: cdp}.
 */
@Extension
public final class CdpProviderContribution implements BrowserProviderContribution {
  private final PlaywrightProvider provider;

  @Inject
  public CdpProviderContribution(@Named(PlaywrightProvider.CDP_ID) PlaywrightProvider provider) {
    this.provider = provider;
  }

  @Override
  public BrowserProvider provider() {
    return provider;
  }
}
