package dev.periscope.browser.playwright;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * The browser-wide proxy of a Chromium that many environments share: it hangs up on every
 * connection. Each environment's context has its own policy proxy; this one is there because WebRTC
 * honours only a browser-wide proxy when it decides which UDP is "non-proxied", and anything that
 * would not use the context's proxy must reach nowhere.
 */
final class NowhereProxy implements AutoCloseable {
  private final ServerSocket socket;
  private final Thread acceptor;

  NowhereProxy(int number) {
    try {
      socket = new ServerSocket();
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on loopback for the browser-wide proxy", e);
    }
    acceptor = new Thread(this::refuse, "periscope-nowhere-proxy-" + number);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The proxy as Chromium's {@code --proxy-server} takes it. */
  String server() {
    return "http://127.0.0.1:" + socket.getLocalPort();
  }

  private void refuse() {
    while (!socket.isClosed()) {
      try (Socket s = socket.accept()) {
        s.setSoLinger(true, 0);
      } catch (IOException e) {
        // closed, or the peer went first
      }
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
      acceptor.join(5_000);
    } catch (IOException e) {
      // closing a listening socket does not fail in a way that matters here
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
