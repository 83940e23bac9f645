package dev.periscope.browser.playwright;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The two requests the grid provider makes of a Selenium Grid itself, with the project's headers:
 * its {@code /status}, and the end of a session a stopped driver left open there ({@code DELETE
 * /session/ID}). Playwright's driver asks for the browsers.
 */
final class GridClient {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private GridClient() {}

  /** The Grid's status now, within {@code timeoutMs}. */
  static GridStatus status(GridSettings grid, long timeoutMs)
      throws IOException, InterruptedException {
    HttpResponse<String> r = send(grid, "status", "GET", timeoutMs);
    if (r.statusCode() != 200) {
      throw new IOException("the Grid answered " + r.statusCode() + " at /status");
    }
    return GridStatus.parse(r.body());
  }

  /** Ends one session on the Grid, within {@code timeoutMs}; one already gone is no failure. */
  static void endSession(GridSettings grid, String sessionId, long timeoutMs)
      throws IOException, InterruptedException {
    HttpResponse<String> r =
        send(
            grid,
            "session/" + URLEncoder.encode(sessionId, StandardCharsets.UTF_8),
            "DELETE",
            timeoutMs);
    if (r.statusCode() != 200 && r.statusCode() != 404) {
      throw new IOException("the Grid answered " + r.statusCode() + " to ending a session");
    }
  }

  private static HttpResponse<String> send(
      GridSettings grid, String path, String method, long timeoutMs)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(under(grid.url(), path))
            .timeout(Duration.ofMillis(timeoutMs))
            .method(method, HttpRequest.BodyPublishers.noBody());
    grid.headers().forEach(b::header);
    // The request's own timeout ends at the answer's headers; the whole exchange, body included,
    // is bounded here.
    java.util.concurrent.CompletableFuture<HttpResponse<String>> exchange =
        HTTP.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString());
    try {
      return exchange.get(timeoutMs, java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      exchange.cancel(true);
      throw new java.net.http.HttpTimeoutException(
          "the Grid did not answer within " + timeoutMs + " ms");
    } catch (InterruptedException e) {
      exchange.cancel(true);
      throw e;
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException(String.valueOf(cause), cause);
    }
  }

  private static URI under(URI grid, String path) {
    String base = grid.getPath() == null ? "" : grid.getPath();
    return grid.resolve((base.endsWith("/") ? base : base + "/") + path);
  }
}
