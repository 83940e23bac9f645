package dev.periscope.api.browser.spi;

import org.pf4j.ExtensionPoint;

/**
 * How any plugin contributes a browser provider: an {@code @Extension} implementing this. The
 * browser plugin registers each contributed provider with its runtime as an effect, closed when
 * either plugin stops.
 *
 * <p>Threading: {@link #provider()} is called once, on the thread that starts the contributing
 * plugin.
 */
public interface BrowserProviderContribution extends ExtensionPoint {
  BrowserProvider provider();
}
