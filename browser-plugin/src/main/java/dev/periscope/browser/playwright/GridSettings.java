package dev.periscope.browser.playwright;

import dev.periscope.api.ConfigurationException;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.browser.SettingBound;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Where the grid provider opens its browsers: a Selenium Grid 4 at {@code url} (its router, as
 * {@code http://HOST:4444}), the headers every request to it carries (a token a gateway in front of
 * it asks for), how long a new browser may wait in the Grid's queue for a free slot, how long the
 * Grid may then take to start it, and the address the environments' policy proxies listen on, which
 * the Grid's nodes must reach (loopback serves only a Grid whose nodes run on this machine).
 */
public record GridSettings(
    URI url,
    Map<String, String> headers,
    long queueTimeoutMs,
    String proxyAddress,
    long launchTimeoutMs,
    long drainCheckMs) {
  public GridSettings {
    headers = Map.copyOf(headers);
  }

  /**
   * How often, while environments are open on the Grid, its status is read for nodes that drain.
   */
  public static final SettingBound DRAIN_CHECK_MS =
      new SettingBound("grid.drainCheckMs", 5_000, 1_000, 600_000);

  /** How long a new browser waits for a free slot. */
  public static final SettingBound QUEUE_TIMEOUT_MS =
      new SettingBound("grid.queueTimeoutMs", 60_000, 1_000, 600_000);

  /** How long the Grid may take to start a browser, once a slot was free. */
  public static final SettingBound LAUNCH_TIMEOUT_MS =
      new SettingBound("grid.launchTimeoutMs", 60_000, 1_000, 600_000);

  /**
   * The project's {@code plugins.browser.grid} section, if it has one; every value is checked, and
   * a bad one is a {@link ConfigurationException} naming it.
   */
  public static Optional<GridSettings> read(PluginConfiguration config) {
    if (config.at("grid").isEmpty()) {
      return Optional.empty();
    }
    String text =
        config
            .string("grid.url")
            .orElseThrow(
                () ->
                    new ConfigurationException(
                        "plugins.browser.grid.url",
                        "plugins.browser.grid needs url: the Selenium Grid's address, as"
                            + " http://grid.internal:4444"));
    URI url;
    try {
      url = new URI(text);
    } catch (URISyntaxException e) {
      url = null;
    }
    if (url == null
        || !("http".equals(url.getScheme()) || "https".equals(url.getScheme()))
        || url.getHost() == null
        || url.getUserInfo() != null
        || url.getQuery() != null
        || url.getFragment() != null) {
      throw new ConfigurationException(
          "plugins.browser.grid.url",
          "plugins.browser.grid.url must be the Grid's http:// or https:// address, as"
              + " http://grid.internal:4444, without credentials in it (they go in grid.headers)");
    }
    Map<String, String> headers = new LinkedHashMap<>();
    Object raw = config.at("grid.headers").orElse(Map.of());
    if (!(raw instanceof Map<?, ?> map)) {
      throw new ConfigurationException(
          "plugins.browser.grid.headers",
          "plugins.browser.grid.headers must map header names to values");
    }
    map.forEach(
        (name, value) -> {
          if (!(name instanceof String n)
              || !n.matches("[A-Za-z0-9!#$%&'*+.^_`|~-]+")
              || !(value instanceof String v)
              || v.chars().anyMatch(c -> c < 0x20 && c != '\t' || c == 0x7f)) {
            throw new ConfigurationException(
                "plugins.browser.grid.headers",
                "plugins.browser.grid.headers."
                    + name
                    + " must be a header name with a one-line text value");
          }
          headers.put(n, v);
        });
    long queue = QUEUE_TIMEOUT_MS.read(config);
    long launch = LAUNCH_TIMEOUT_MS.read(config);
    long drainCheck = DRAIN_CHECK_MS.read(config);
    String proxyAddress = config.string("grid.proxyAddress").orElse("127.0.0.1");
    if (!dev.periscope.browser.policy.PolicyProxy.oneAddress(proxyAddress)) {
      throw new ConfigurationException(
          "plugins.browser.grid.proxyAddress",
          "plugins.browser.grid.proxyAddress must be one address of this machine that the Grid's"
              + " nodes reach, not every interface's (found "
              + proxyAddress
              + ")");
    }
    return Optional.of(new GridSettings(url, headers, queue, proxyAddress, launch, drainCheck));
  }

  /** Never the headers' values: they may hold a gateway's token. */
  @Override
  public String toString() {
    return "GridSettings[url="
        + url
        + ", headers="
        + headers.keySet()
        + ", queueTimeoutMs="
        + queueTimeoutMs
        + ", proxyAddress="
        + proxyAddress
        + ", launchTimeoutMs="
        + launchTimeoutMs
        + ", drainCheckMs="
        + drainCheckMs
        + "]";
  }

  /** Whether the proxies listen only on loopback: then only nodes on this machine reach them. */
  public boolean proxyOnLoopback() {
    return loopback(proxyAddress);
  }

  /** Whether the Grid itself is on this machine (its URL names loopback). */
  public boolean gridOnLoopback() {
    return loopback(url.getHost());
  }

  private static boolean loopback(String host) {
    String h = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    return h.equals("localhost") || h.startsWith("127.") || h.equals("::1");
  }
}
