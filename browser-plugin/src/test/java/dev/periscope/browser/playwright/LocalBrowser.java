package dev.periscope.browser.playwright;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.BrowserSettings;
import dev.periscope.browser.runtime.CredentialChannel;
import dev.periscope.browser.runtime.DefaultBrowserRuntime;
import dev.periscope.browser.tools.ToolsForTests;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * What the provider tests share: pages served on 127.0.0.1 from a map (plus any handlers a test
 * adds), and the browser tools over a real runtime and Playwright provider. Close it when done.
 */
final class LocalBrowser implements AutoCloseable {
  private final HttpServer server;
  private final DefaultBrowserRuntime runtime;
  private final PlaywrightProvider provider;
  private final List<Tool> tools;
  private final Path checkpoints;

  /** The policy the local test pages need: 127.0.0.1 (and 127.0.0.2, a second host) admitted. */
  static final PluginConfiguration LOOPBACK = withLoopback(Map.of());

  /** A request to open an environment under the policy {@code config} states. */
  static dev.periscope.api.browser.spi.BrowserProvider.OpenRequest request(
      PluginConfiguration config, dev.periscope.api.browser.Persistence persistence) {
    return new dev.periscope.api.browser.spi.BrowserProvider.OpenRequest(
        dev.periscope.api.browser.BrowserSessionId.random(),
        persistence,
        BrowserSettings.from(config).runtime().environment());
  }

  static PluginConfiguration withLoopback(Map<String, Object> settings) {
    Map<String, Object> all = new java.util.HashMap<>(settings);
    all.put(
        "network",
        Map.of("mode", "allowlist", "allowCidrs", List.of("127.0.0.1/32", "127.0.0.2/32")));
    return new PluginConfiguration(all);
  }

  LocalBrowser(Map<String, String> pages, Map<String, HttpHandler> handlers) throws IOException {
    this(pages, handlers, CredentialChannel.none(), LOOPBACK);
  }

  /** With a credential channel and plugin settings of the test's choosing. */
  LocalBrowser(
      Map<String, String> pages,
      Map<String, HttpHandler> handlers,
      CredentialChannel credentials,
      PluginConfiguration config)
      throws IOException {
    this(pages, handlers, credentials, config, java.util.Optional.empty());
  }

  /** With an attachment store as well, for the tools that read or write attachments. */
  LocalBrowser(
      Map<String, String> pages,
      Map<String, HttpHandler> handlers,
      CredentialChannel credentials,
      PluginConfiguration config,
      java.util.Optional<dev.periscope.api.host.AttachmentService> attachments)
      throws IOException {
    this(
        pages,
        handlers,
        credentials,
        config,
        attachments,
        dev.periscope.browser.runtime.PageScripting.off());
  }

  /** With scripting as well: {@code browser_evaluate} is offered when it is enabled. */
  LocalBrowser(
      Map<String, String> pages,
      Map<String, HttpHandler> handlers,
      CredentialChannel credentials,
      PluginConfiguration config,
      java.util.Optional<dev.periscope.api.host.AttachmentService> attachments,
      dev.periscope.browser.runtime.PageScripting scripting)
      throws IOException {
    this(pages, handlers, credentials, config, attachments, scripting, b -> b);
  }

  /** With more of the runtime's making: a recording store, say. */
  LocalBrowser(
      Map<String, String> pages,
      Map<String, HttpHandler> handlers,
      CredentialChannel credentials,
      PluginConfiguration config,
      java.util.Optional<dev.periscope.api.host.AttachmentService> attachments,
      dev.periscope.browser.runtime.PageScripting scripting,
      java.util.function.UnaryOperator<dev.periscope.browser.runtime.RuntimeBuilder> more)
      throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange ->
            respond(
                exchange,
                pages.getOrDefault(
                    exchange.getRequestURI().getPath(), "<html><body>other</body></html>")));
    handlers.forEach(server::createContext);
    server.setExecutor(Executors.newCachedThreadPool());
    server.start();
    BrowserSettings settings = BrowserSettings.from(config);
    runtime =
        more.apply(
                DefaultBrowserRuntime.builder(settings.runtime())
                    .credentials(credentials)
                    .scripting(scripting))
            .build();
    // Sessions resume, as they do by default: every action is followed by a real checkpoint.
    checkpoints = Files.createTempDirectory("local-browser-checkpoints-");
    provider =
        new PlaywrightProvider(
            settings.playwright(), java.util.Optional.of(checkpoints.resolve("checkpoints")));
    runtime.registerProvider(provider);
    List<Tool> offered =
        new java.util.ArrayList<>(ToolsForTests.tools(runtime, settings, credentials, attachments));
    if (scripting.enabled()) {
      offered.add(ToolsForTests.scriptTool());
    }
    tools = List.copyOf(offered);
  }

  LocalBrowser(Map<String, String> pages) throws IOException {
    this(pages, Map.of());
  }

  /** Serving {@code pages} and the page corpus under {@code /pages/} ({@link PageCorpus}). */
  static LocalBrowser withCorpus(Map<String, String> pages) throws IOException {
    return new LocalBrowser(pages, Map.of("/pages/", PageCorpus.handler()));
  }

  /** Opens {@code path} for {@code agent} in {@code mode}; the open must succeed. */
  ToolResult open(String agent, String path, String mode) {
    ToolResult r = call(agent, "browser_open", Map.of("url", url(path), "mode", mode));
    if (r.isError()) {
      throw new AssertionError(r.text());
    }
    return r;
  }

  static void respond(HttpExchange exchange, String html) throws IOException {
    byte[] body = html.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
    exchange.sendResponseHeaders(200, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  DefaultBrowserRuntime runtime() {
    return runtime;
  }

  int port() {
    return server.getAddress().getPort();
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  /** What {@code tool} says of itself to the model. */
  String description(String tool) {
    return tools.stream()
        .filter(t -> t.descriptor().name().equals(tool))
        .findFirst()
        .orElseThrow()
        .descriptor()
        .description();
  }

  ToolResult call(String agent, String tool, Map<String, Object> args) {
    return tools.stream()
        .filter(t -> t.descriptor().name().equals(tool))
        .findFirst()
        .orElseThrow()
        .call(new ToolCall(args, agent, Cancellation.none()));
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> observation(ToolResult r) {
    return (Map<String, Object>) r.structured().get("observation");
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> elements(ToolResult r) {
    return (List<Map<String, Object>>) observation(r).get("elements");
  }

  /** The first element of the result's observation with this name. */
  static Map<String, Object> element(ToolResult r, String name) {
    return elements(r).stream()
        .filter(e -> name.equals(e.get("name")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no element named " + name + " in " + r.text()));
  }

  /**
   * The state flags of the first element with this name ({@code checked}, {@code expanded}, ...).
   */
  static List<String> state(ToolResult r, String name) {
    String state = (String) element(r, name).getOrDefault("state", "");
    return state.isEmpty() ? List.of() : List.of(state.split(", "));
  }

  /** The names of the result's elements, in ranked order. */
  static List<String> names(ToolResult r) {
    return elements(r).stream().map(e -> (String) e.get("name")).toList();
  }

  /** The text of the result's observation, as the model reads it (refs in place of listed text). */
  static String text(ToolResult r) {
    return (String) observation(r).get("text");
  }

  /** {@code observation_id} and {@code element_ref} of the element with this name. */
  static Map<String, Object> target(ToolResult r, String name) {
    return Map.of(
        "observation_id", observation(r).get("id"), "element_ref", element(r, name).get("ref"));
  }

  @Override
  public void close() {
    ToolsForTests.close();
    runtime.close();
    provider.dispose();
    PlaywrightProvider.deleteTree(checkpoints);
    server.stop(0);
  }
}
