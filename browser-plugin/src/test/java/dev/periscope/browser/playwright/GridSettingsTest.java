package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.ConfigurationException;
import dev.periscope.api.PluginConfiguration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GridSettingsTest {
  private static PluginConfiguration grid(Map<String, Object> grid) {
    return new PluginConfiguration(Map.of("grid", grid));
  }

  @Test
  void aGridIsReadWithItsDefaultsAndNoneWithoutTheSection() {
    assertTrue(GridSettings.read(PluginConfiguration.empty()).isEmpty());
    GridSettings g =
        GridSettings.read(grid(Map.of("url", "http://grid.internal:4444"))).orElseThrow();
    assertEquals("grid.internal", g.url().getHost());
    assertEquals(GridSettings.QUEUE_TIMEOUT_MS.defaultValue(), g.queueTimeoutMs());
    assertEquals(GridSettings.LAUNCH_TIMEOUT_MS.defaultValue(), g.launchTimeoutMs());
    assertEquals(GridSettings.DRAIN_CHECK_MS.defaultValue(), g.drainCheckMs());
    assertEquals("127.0.0.1", g.proxyAddress());
    assertTrue(g.proxyOnLoopback());
    assertFalse(g.gridOnLoopback());
  }

  @Test
  void badValuesAreRefusedNamingTheSetting() {
    for (Map<String, Object> bad :
        java.util.List.<Map<String, Object>>of(
            Map.of(),
            Map.of("url", "ws://grid:4444"),
            Map.of("url", "http://user:secret@grid:4444"),
            Map.of("url", "grid:4444"),
            Map.of("url", "http://grid:4444", "headers", Map.of("X-Token", "a\r\nInjected: yes")),
            Map.of("url", "http://grid:4444", "headers", Map.of("bad name", "v")),
            Map.of("url", "http://grid:4444", "queueTimeoutMs", 10),
            Map.of("url", "http://grid:4444", "launchTimeoutMs", 600_001),
            Map.of("url", "http://grid:4444", "launchTimeoutMs", "soon"),
            Map.of("url", "http://grid:4444", "drainCheckMs", 999),
            Map.of("url", "http://grid:4444", "proxyAddress", "10.0.0.1; rm"),
            Map.of("url", "http://grid:4444", "proxyAddress", "0.0.0.0"),
            Map.of("url", "http://grid:4444", "proxyAddress", "0"),
            Map.of("url", "http://grid:4444", "proxyAddress", "0.0"),
            Map.of("url", "http://grid:4444", "proxyAddress", "::"),
            Map.of("url", "http://grid:4444", "proxyAddress", "::ffff:0.0.0.0"))) {
      ConfigurationException e =
          assertThrows(
              ConfigurationException.class, () -> GridSettings.read(grid(bad)), bad::toString);
      assertTrue(e.getMessage().startsWith("plugins.browser.grid"), e.getMessage());
      assertFalse(e.getMessage().contains("secret"), "the URL's credentials are not repeated");
    }
  }
}
