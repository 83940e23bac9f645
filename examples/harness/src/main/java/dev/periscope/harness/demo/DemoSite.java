package dev.periscope.harness.demo;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A small site on 127.0.0.1 for the demo and the tests: pages by path, served by the JDK's HTTP
 * server.
 */
public final class DemoSite implements AutoCloseable {
  static final String HOME =
      """
      <!doctype html>
      <html><head><title>Periscope demo: the lighthouse</title></head>
      <body>
        <nav><a href="/">Home</a> <a href="/about">About</a></nav>
        <h1>The lighthouse keeper's question</h1>
        <p>How many steps lead to the lamp room? Press the button to find out.</p>
        <button id="reveal" onclick="document.getElementById('answer').textContent =
          'There are 217 steps to the lamp room.'; this.textContent = 'Answer shown'; document.cookie = 'seen=1; path=/';">
          Show the answer</button>
        <p id="answer"></p>
      </body></html>
      """;
  static final String ABOUT =
      """
      <!doctype html><html><head><title>About</title></head><body><h1>About</h1><a href="/">Back home</a></body></html>
      """;

  private final HttpServer server;
  private final ExecutorService executor =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "demo-site");
            t.setDaemon(true);
            return t;
          });

  DemoSite(Map<String, String> pages) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          String page = pages.get(exchange.getRequestURI().getPath());
          byte[] body =
              (page == null ? "<h1>Not found</h1>" : page).getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
          exchange.sendResponseHeaders(page == null ? 404 : 200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.setExecutor(executor);
    server.start();
  }

  public static DemoSite standard() throws IOException {
    return new DemoSite(Map.of("/", HOME, "/about", ABOUT));
  }

  public String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
