package dev.periscope.examples.langchain4j;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A one-product shop on 127.0.0.1: its "Add to cart" button shows the cart at once and posts to
 * {@code /cart}, where the server counts the items added. (The page does not wait for the server's
 * answer to show the cart: a click's observation does not wait for the requests the click starts.)
 */
final class ShopSite implements AutoCloseable {
  private static final String PAGE =
      """
      <!doctype html>
      <html><head><title>Lantern shop</title></head>
      <body>
        <h1>Storm lantern</h1>
        <p>Brass, 30 hours on one filling. $48.00</p>
        <p id="cart">Your cart is empty.</p>
        <button id="add">Add to cart</button>
        <a href="/about">About us</a>
        <script>
          let items = 0;
          document.getElementById('add').addEventListener('click', () => {
            items++;
            document.getElementById('cart').textContent =
                'Cart: ' + items + (items === 1 ? ' item' : ' items') + ', $' + (48 * items) + '.00';
            fetch('/cart', {method: 'POST'});
          });
        </script>
      </body></html>
      """;

  private final HttpServer server;
  private final AtomicInteger added = new AtomicInteger();

  ShopSite() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  private void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    String method = exchange.getRequestMethod();
    if (path.equals("/cart") && method.equals("POST")) {
      send(exchange, 200, "text/plain", "added " + added.incrementAndGet());
    } else if (path.equals("/") && method.equals("GET")) {
      send(exchange, 200, "text/html", PAGE);
    } else {
      send(exchange, 404, "text/plain", "not here");
    }
  }

  private static void send(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
  }

  /** How many times the page's button reached the server, once that is {@code n} or 10 s pass. */
  int added(int n) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (added.get() < n && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    return added.get();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
