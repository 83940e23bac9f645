package dev.periscope.examples.springai;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * One small page on 127.0.0.1: a product, its cart line and an "Add to cart" button whose click
 * changes that line. Other buttons come first, so the one to press is found by its name.
 */
final class ShopPage implements AutoCloseable {
  static final String BEFORE = "Your cart is empty.";
  static final String AFTER = "1 item in your cart: Canvas Backpack";

  private static final String HTML =
      """
      <!doctype html>
      <html><head><meta charset="utf-8"><title>Canvas Backpack</title></head>
      <body>
        <h1>Canvas Backpack</h1>
        <p>A 20-litre backpack of waxed canvas. $29.99</p>
        <button type="button">Save for later</button>
        <button type="button">Compare</button>
        <button type="button" onclick="document.getElementById('cart').textContent = '%s'">Add to cart</button>
        <p id="cart">%s</p>
      </body></html>
      """
          .formatted(AFTER, BEFORE);

  private final HttpServer server;

  ShopPage() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          byte[] body =
              exchange.getRequestURI().getPath().equals("/")
                  ? HTML.getBytes(StandardCharsets.UTF_8)
                  : new byte[0];
          exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
          exchange.sendResponseHeaders(
              body.length == 0 ? 404 : 200, body.length == 0 ? -1 : body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
