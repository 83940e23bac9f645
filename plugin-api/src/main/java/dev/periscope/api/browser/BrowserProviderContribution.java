package dev.periscope.api.browser;

import org.pf4j.ExtensionPoint;

/**
 * How any plugin contributes a browser provider: an {@code @Extension} implementing this. The browser plugin
 * registers each contributed provider with its runtime as an effect, closed when either plugin stops.
 */
public interface BrowserProviderContribution extends ExtensionPoint {
  BrowserProvider provider();
}
