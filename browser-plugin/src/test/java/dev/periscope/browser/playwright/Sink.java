package dev.periscope.browser.playwright;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A decoy on a loopback address that keeps every byte it receives: each HTTP request whole (head
 * and body), and for a WebSocket its handshake and the unmasked payload of every frame the page
 * sends. It answers 200 with an empty body, and 101 to a WebSocket handshake. {@link #carries}
 * looks for a value in every encoding the egress guard promises, independently of the guard.
 */
final class Sink implements AutoCloseable {
  private final ServerSocket socket;

  /** What each connection delivered, in order; a WebSocket's entry grows with its frames. */
  private final List<ByteArrayOutputStream> received = new CopyOnWriteArrayList<>();

  Sink(InetAddress address) throws IOException {
    socket = new ServerSocket(0, 50, address);
    Thread t =
        new Thread(
            () -> {
              while (!socket.isClosed()) {
                try {
                  Socket c = socket.accept();
                  Thread serve = new Thread(() -> serve(c));
                  serve.setDaemon(true);
                  serve.start();
                } catch (IOException closed) {
                  return;
                }
              }
            });
    t.setDaemon(true);
    t.start();
  }

  int port() {
    return socket.getLocalPort();
  }

  private void serve(Socket c) {
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    received.add(got);
    try (c) {
      InputStream in = c.getInputStream();
      OutputStream out = c.getOutputStream();
      while (true) {
        String head = readHead(in, got);
        if (head == null) {
          return;
        }
        String lower = head.toLowerCase(Locale.ROOT);
        if (lower.contains("upgrade: websocket")) {
          webSocket(head, in, out, got);
          return;
        }
        int length = 0;
        for (String line : lower.split("\r\n")) {
          if (line.startsWith("content-length:")) {
            length = Integer.parseInt(line.substring(15).trim());
          }
        }
        byte[] body = in.readNBytes(length);
        synchronized (got) {
          got.write(body);
        }
        String type = head.contains(" /es") ? "text/event-stream" : "text/html";
        out.write(
            ("HTTP/1.1 200 OK\r\nContent-Type: "
                    + type
                    + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return;
      }
    } catch (IOException | RuntimeException gone) {
      // the browser went
    }
  }

  private static String readHead(InputStream in, ByteArrayOutputStream got) throws IOException {
    StringBuilder head = new StringBuilder();
    int b;
    while ((b = in.read()) >= 0) {
      synchronized (got) {
        got.write(b);
      }
      head.append((char) b);
      if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
        return head.toString();
      }
    }
    return null;
  }

  private static void webSocket(
      String head, InputStream in, OutputStream out, ByteArrayOutputStream got) throws IOException {
    String key = "";
    for (String line : head.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("sec-websocket-key:")) {
        key = line.substring(line.indexOf(':') + 1).trim();
      }
    }
    String accept;
    try {
      accept =
          Base64.getEncoder()
              .encodeToString(
                  java.security.MessageDigest.getInstance("SHA-1")
                      .digest(
                          (key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")
                              .getBytes(StandardCharsets.ISO_8859_1)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    out.write(
        ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: "
                + accept
                + "\r\n\r\n")
            .getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
    while (true) {
      int b0 = in.read();
      int b1 = in.read();
      if (b0 < 0 || b1 < 0) {
        return;
      }
      long length = b1 & 0x7f;
      if (length == 126) {
        length = ((in.read() & 0xff) << 8) | (in.read() & 0xff);
      } else if (length == 127) {
        length = 0;
        for (int i = 0; i < 8; i++) {
          length = (length << 8) | (in.read() & 0xff);
        }
      }
      byte[] mask = (b1 & 0x80) != 0 ? in.readNBytes(4) : new byte[4];
      byte[] payload = in.readNBytes((int) length);
      for (int i = 0; i < payload.length; i++) {
        payload[i] ^= mask[i % 4];
      }
      synchronized (got) {
        got.write('\n');
        got.write(payload);
      }
      if ((b0 & 0x0f) == 8) {
        return;
      }
    }
  }

  /** The first line of every connection, for a failure's message. */
  List<String> firstLines() {
    List<String> lines = new ArrayList<>();
    for (ByteArrayOutputStream got : received) {
      synchronized (got) {
        lines.add(new String(got.toByteArray(), StandardCharsets.ISO_8859_1).split("\r\n", 2)[0]);
      }
    }
    return lines;
  }

  /**
   * The channels (the path each request asked for, without its query) whose requests carry {@code
   * value} in any encoding.
   */
  Set<String> channelsCarrying(String value) {
    Set<String> channels = new TreeSet<>();
    for (ByteArrayOutputStream got : received) {
      byte[] bytes;
      synchronized (got) {
        bytes = got.toByteArray();
      }
      if (carries(bytes, value)) {
        String first = new String(bytes, StandardCharsets.ISO_8859_1).split("\r\n", 2)[0];
        String target = first.split(" ").length > 1 ? first.split(" ")[1] : first;
        target = target.replaceFirst("^[a-z]+://[^/]+", "");
        channels.add(target.split("\\?", 2)[0]);
      }
    }
    return channels;
  }

  /**
   * Whether {@code bytes} carry {@code value}: plain, reversed, hex (either case), base64 standard
   * or URL-safe at any alignment, each also after percent-decoding once or twice.
   */
  static boolean carries(byte[] bytes, String value) {
    byte[] v = value.getBytes(StandardCharsets.UTF_8);
    byte[] r = new StringBuilder(value).reverse().toString().getBytes(StandardCharsets.UTF_8);
    List<String> forms = new ArrayList<>();
    for (byte[] b : List.of(v, r)) {
      forms.add(new String(b, StandardCharsets.ISO_8859_1));
      forms.add(HexFormat.of().formatHex(b));
      for (int k = 0; k < 3; k++) {
        byte[] shifted = new byte[k + b.length];
        System.arraycopy(b, 0, shifted, k, b.length);
        String e = Base64.getEncoder().withoutPadding().encodeToString(shifted);
        String core = e.substring((8 * k + 5) / 6, (8 * (k + b.length)) / 6);
        forms.add(core);
        forms.add(core.replace('+', '-').replace('/', '_'));
      }
    }
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    // With dots left out as well: a host name may spread a form over its labels.
    String joined = text.replace(".", "");
    for (String t :
        List.of(
            text,
            joined,
            decode(text, false),
            decode(text, true),
            decode(decode(text, true), true),
            decode(decode(text, false), true))) {
      String lower = t.toLowerCase(Locale.ROOT);
      for (String f : forms) {
        if (t.contains(f) || lower.contains(f.toLowerCase(Locale.ROOT)) && f.matches("[0-9a-f]+")) {
          return true;
        }
      }
    }
    return false;
  }

  private static String decode(String s, boolean plus) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%' && i + 2 < s.length()) {
        try {
          out.append((char) Integer.parseInt(s.substring(i + 1, i + 3), 16));
          i += 2;
          continue;
        } catch (NumberFormatException no) {
          // as it is
        }
      }
      out.append(plus && c == '+' ? ' ' : c);
    }
    return out.toString();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
