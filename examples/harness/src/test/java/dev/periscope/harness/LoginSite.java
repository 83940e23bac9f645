package dev.periscope.harness;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * A site on 127.0.0.1 with a login: {@code /login} stores a theme in localStorage and goes to
 * {@code /do-login}, which sets an HttpOnly session cookie; {@code /home} says whether the cookie
 * came back and shows the theme; {@code /later} changes the theme 1.5 s after it loaded, when no
 * action is running; {@code /slow} answers after a minute, for a step to hang on.
 */
public final class LoginSite implements AutoCloseable {
  static final String SESSION_COOKIE = "keeper-session";

  private final HttpServer server;
  private final java.util.concurrent.CountDownLatch later =
      new java.util.concurrent.CountDownLatch(1);
  private final java.util.concurrent.CountDownLatch slow =
      new java.util.concurrent.CountDownLatch(1);

  public LoginSite() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext(
        "/login",
        e ->
            html(
                e,
                "",
                """
        <h1>Lighthouse login</h1>
        <button onclick="localStorage.setItem('theme', 'dark'); window.location.href = '/do-login'">Log in</button>"""));
    server.createContext(
        "/workbench",
        e ->
            html(
                e,
                "",
                """
        <input id="q" aria-label="Search"><p id="keys">keys: 0</p>
        <input type="file" aria-label="Photo"
          onchange="document.getElementById('photo').textContent = 'photo ' + this.files[0].type"><p id="photo"></p>
        <ul id="list"><li draggable="true">Apples</li><li draggable="true">Bananas</li></ul>
        <p id="order">order: Apples, Bananas</p>
        <button id="b">Options</button><p id="menu">no menu</p>
        <button onclick="document.getElementById('removed').textContent =
          confirm('Remove the list?') ? 'list removed' : 'list kept'">Remove</button><p id="removed"></p>
        <button onmouseover="document.getElementById('tip').textContent = 'tip shown'">Tips</button>
        <p id="tip">no tip</p>
        <a href="/login" target="_blank">Sign-in page</a>
        <script>
          let keys = 0;
          document.getElementById('q').addEventListener('keydown', () =>
            document.getElementById('keys').textContent = 'keys: ' + (++keys));
          document.getElementById('b').addEventListener('contextmenu', (ev) => {
            ev.preventDefault(); document.getElementById('menu').textContent = 'menu opened'; });
          const list = document.getElementById('list');
          let dragged;
          list.addEventListener('dragstart', (ev) => dragged = ev.target);
          list.addEventListener('dragover', (ev) => ev.preventDefault());
          list.addEventListener('drop', (ev) => {
            ev.preventDefault(); list.insertBefore(dragged, ev.target.closest('li'));
            document.getElementById('order').textContent = 'order: '
              + Array.from(list.children).map(li => li.textContent).join(', '); });
        </script>"""));
    // A login kept as Firebase keeps it: in IndexedDB, with the tab's state in session storage.
    server.createContext(
        "/fb-login",
        e ->
            html(
                e,
                "",
                """
        <p id="state">signing in</p>
        <script>
          sessionStorage.setItem('tab', 'tab-7');
          const open = indexedDB.open('firebaseLocalStorageDb', 1);
          open.onupgradeneeded = () =>
            open.result.createObjectStore('firebaseLocalStorage', { keyPath: 'fbase_key' });
          open.onsuccess = () => {
            const tx = open.result.transaction('firebaseLocalStorage', 'readwrite');
            tx.objectStore('firebaseLocalStorage')
              .put({ fbase_key: 'firebase:authUser', value: { uid: 'keeper-idb' } });
            tx.oncomplete = () => document.getElementById('state').textContent = 'Signed in with Firebase';
          };
        </script>"""));
    server.createContext(
        "/fb-home",
        e ->
            html(
                e,
                "",
                """
        <p id="tab">Tab: none</p><p id="who">Identity: none</p>
        <script>
          document.getElementById('tab').textContent = 'Tab: ' + (sessionStorage.getItem('tab') || 'none');
          const open = indexedDB.open('firebaseLocalStorageDb');
          open.onupgradeneeded = () => open.transaction.abort();
          open.onsuccess = () => {
            const get = open.result.transaction('firebaseLocalStorage')
              .objectStore('firebaseLocalStorage').get('firebase:authUser');
            get.onsuccess = () => document.getElementById('who').textContent =
              'Identity: ' + (get.result ? get.result.value.uid : 'none');
          };
        </script>"""));
    server.createContext(
        "/do-login",
        e ->
            html(
                e,
                SESSION_COOKIE + "=keeper-42; Path=/; Max-Age=86400; HttpOnly",
                "<h1>Logged in</h1>"));
    server.createContext(
        "/home",
        e -> {
          String cookies = String.valueOf(e.getRequestHeaders().getFirst("Cookie"));
          html(
              e,
              "",
              (cookies.contains(SESSION_COOKIE + "=keeper-42")
                      ? "<h1>Welcome back, keeper</h1>"
                      : "<h1>Not logged in</h1>")
                  + "<p id=\"t\"></p><script>document.getElementById('t').textContent = 'Theme: '"
                  + " + (localStorage.getItem('theme') || 'none');</script>");
        });
    server.createContext(
        "/later",
        e ->
            html(
                e,
                "",
                "<h1>Later</h1><script>setTimeout(() => {"
                    + " localStorage.setItem('theme', 'late'); fetch('/later-done'); }, 1500);</script>"));
    server.createContext(
        "/later-done",
        e -> {
          later.countDown();
          html(e, "", "done");
        });
    server.createContext(
        "/slow",
        e -> {
          slow.countDown();
          try {
            Thread.sleep(60_000);
          } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
          }
          html(e, "", "<h1>Late</h1>");
        });
    server.start();
  }

  /** Serves another page at {@code path}: {@code body} inside this site's document. */
  public LoginSite page(String path, String body) {
    server.createContext(path, e -> html(e, "", body));
    return this;
  }

  /** Serves {@code path} with a handler of the test's own. */
  public LoginSite handler(String path, com.sun.net.httpserver.HttpHandler handler) {
    server.createContext(path, handler);
    return this;
  }

  /** Waits until a {@code /later} page has changed its theme. */
  public boolean awaitLater() throws InterruptedException {
    return later.await(60, java.util.concurrent.TimeUnit.SECONDS);
  }

  /** Waits until {@code /slow} was asked for. */
  public boolean awaitSlow() throws InterruptedException {
    return slow.await(60, java.util.concurrent.TimeUnit.SECONDS);
  }

  public String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  private static void html(HttpExchange e, String cookie, String body) throws IOException {
    byte[] bytes =
        ("<!doctype html><html><head><title>Lighthouse</title></head><body>"
                + body
                + "</body></html>")
            .getBytes(StandardCharsets.UTF_8);
    e.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
    if (!cookie.isEmpty()) {
      e.getResponseHeaders().set("Set-Cookie", cookie);
    }
    e.sendResponseHeaders(200, bytes.length);
    try (OutputStream out = e.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }
}
