package dev.periscope.browser.playwright;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The page corpus in the test resources, described by its README: component demos vendored from the
 * W3C ARIA Authoring Practices, Bootstrap and jQuery UI, and pages written in the shapes real sites
 * use, all working offline. A test serves it through its LocalBrowser's handlers, as in {@code
 * Map.of("/pages/", PageCorpus.handler())}.
 */
final class PageCorpus {

  /** The URL path the corpus is served under, which is also its folder on the test classpath. */
  static final String ROOT = "/pages/";

  private static final Map<String, String> CONTENT_TYPES =
      Map.ofEntries(
          Map.entry("html", "text/html; charset=utf-8"),
          Map.entry("css", "text/css; charset=utf-8"),
          Map.entry("js", "text/javascript; charset=utf-8"),
          Map.entry("svg", "image/svg+xml"),
          Map.entry("png", "image/png"),
          Map.entry("woff2", "font/woff2"),
          Map.entry("json", "application/json"),
          Map.entry("txt", "text/plain; charset=utf-8"),
          Map.entry("md", "text/markdown; charset=utf-8"));

  private PageCorpus() {}

  /**
   * Serves {@code /pages/**} from the test classpath with its content type; anything else (a
   * missing file, a folder, a type not listed, a path with {@code ..}, a method other than GET or
   * HEAD) is a 404 or 405.
   */
  static HttpHandler handler() {
    return PageCorpus::serve;
  }

  /** Every HTML page of the corpus as a URL path ({@code /pages/apg/tabs.html}), from its index. */
  static List<String> htmlPages() {
    try (InputStream in = PageCorpus.class.getResourceAsStream(ROOT + "index.txt")) {
      if (in == null) {
        throw new IllegalStateException("no " + ROOT + "index.txt on the test classpath");
      }
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      return reader.lines().map(String::strip).filter(line -> line.endsWith(".html")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void serve(HttpExchange exchange) throws IOException {
    try {
      String method = exchange.getRequestMethod();
      boolean head = method.equals("HEAD");
      if (!head && !method.equals("GET")) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      String path = exchange.getRequestURI().getPath();
      String type = path == null ? null : contentType(path);
      byte[] body = type == null ? null : read(path);
      if (body == null) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      exchange.getResponseHeaders().set("Content-Type", type);
      exchange.getResponseHeaders().set("Cache-Control", "no-cache");
      if (head || body.length == 0) {
        exchange.sendResponseHeaders(200, -1);
        return;
      }
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    } finally {
      exchange.close();
    }
  }

  private static byte[] read(String path) throws IOException {
    try (InputStream in = PageCorpus.class.getResourceAsStream(path)) {
      return in == null ? null : in.readAllBytes();
    }
  }

  /**
   * The content type of a corpus file's URL path, or null when the path is not one to serve:
   * outside {@code /pages/}, with a {@code ..} segment, a backslash or a control character, or
   * without a listed extension (a folder has none, so no listing is ever served).
   */
  static String contentType(String path) {
    if (!path.startsWith(ROOT) || path.contains("\\") || path.contains("//")) {
      return null;
    }
    for (String segment : path.substring(ROOT.length()).split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        return null;
      }
    }
    if (path.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
      return null;
    }
    String name = path.substring(path.lastIndexOf('/') + 1);
    int dot = name.lastIndexOf('.');
    if (dot <= 0) {
      return null;
    }
    return CONTENT_TYPES.get(name.substring(dot + 1).toLowerCase(Locale.ROOT));
  }
}
