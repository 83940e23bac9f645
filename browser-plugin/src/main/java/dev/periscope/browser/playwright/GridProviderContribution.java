package dev.periscope.browser.playwright;

import com.google.inject.name.Named;
import dev.periscope.api.browser.spi.BrowserProvider;
import dev.periscope.api.browser.spi.BrowserProviderContribution;
import jakarta.inject.Inject;
import org.pf4j.Extension;

/**
 * Contributes the grid provider ({@link PlaywrightProvider#GRID_ID}): available once the project
 * names a Selenium Grid ({@code plugins.browser.grid}), chosen with {@code
 * plugins.browser.provider: grid}.
 */
@Extension
public final class GridProviderContribution implements BrowserProviderContribution {
  private final PlaywrightProvider provider;

  @Inject
  public GridProviderContribution(@Named(PlaywrightProvider.GRID_ID) PlaywrightProvider provider) {
    this.provider = provider;
  }

  @Override
  public BrowserProvider provider() {
    return provider;
  }
}
