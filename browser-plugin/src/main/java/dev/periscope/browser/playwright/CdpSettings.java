package dev.periscope.browser.playwright;

import dev.periscope.api.ConfigurationException;
import dev.periscope.api.PluginConfiguration;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Optional;

/**
 * Where the cdp provider attaches: a Chromium the user already runs, at its DevTools discovery
 * address {@code url} ({@code http://HOST:PORT}, which answers {@code /json/version}), and whether
 * the project accepts request-level enforcement of its network policy there ({@code
 * requestLevelPolicy}): every request of the agent's tabs checked by interception, weaker than the
 * policy proxy the other providers impose (no DNS pinning; WebRTC, service workers, worker
 * WebSockets and redirects in cross-site frames are not covered). Without it the cdp provider does
 * not enforce the policy, and the runtime refuses it for {@code strict} and {@code allowlist}
 * projects.
 */
public record CdpSettings(URI url, boolean requestLevelPolicy) {

  /**
   * The project's {@code plugins.browser.cdp} section, if it has one; a bad value is a {@link
   * ConfigurationException} naming it and what to write instead.
   */
  public static Optional<CdpSettings> read(PluginConfiguration config) {
    if (config.at("cdp").isEmpty()) {
      return Optional.empty();
    }
    String text =
        config
            .string("cdp.url")
            .orElseThrow(
                () ->
                    new ConfigurationException(
                        "plugins.browser.cdp.url",
                        "plugins.browser.cdp needs url: the DevTools address of a running Chromium,"
                            + " as http://127.0.0.1:9222 (Chromium started with"
                            + " --remote-debugging-port=9222)"));
    URI url;
    try {
      url = new URI(text.strip());
    } catch (URISyntaxException e) {
      url = null;
    }
    if (url != null && ("ws".equals(url.getScheme()) || "wss".equals(url.getScheme()))) {
      throw new ConfigurationException(
          "plugins.browser.cdp.url",
          "plugins.browser.cdp.url is a WebSocket address ("
              + url.getScheme()
              + "://): give the browser's discovery address instead, http://HOST:PORT, which"
              + " answers /json/version (the port of --remote-debugging-port)");
    }
    if (url == null
        || !"http".equals(url.getScheme())
        || url.getHost() == null
        || url.getPort() < 1
        || url.getUserInfo() != null
        || url.getQuery() != null
        || url.getFragment() != null
        || !(url.getRawPath() == null
            || url.getRawPath().isEmpty()
            || url.getRawPath().equals("/"))) {
      throw new ConfigurationException(
          "plugins.browser.cdp.url",
          "plugins.browser.cdp.url must be a running Chromium's DevTools address, http://HOST:PORT"
              + " with nothing after the port, as http://127.0.0.1:9222");
    }
    Object opted = config.at("cdp.requestLevelPolicy").orElse(false);
    if (!(opted instanceof Boolean accepted)) {
      throw new ConfigurationException(
          "plugins.browser.cdp.requestLevelPolicy",
          "plugins.browser.cdp.requestLevelPolicy must be true or false");
    }
    return Optional.of(new CdpSettings(URI.create("http://" + url.getRawAuthority()), accepted));
  }
}
