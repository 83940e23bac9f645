package dev.periscope.harness.cli;

import dev.periscope.credentials.CredentialStore;
import dev.periscope.credentials.CredentialStoreException;
import dev.periscope.harness.HarnessException;
import java.io.ByteArrayOutputStream;
import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code harness credentials set|list|remove}: the profile's encrypted credential store. {@code
 * set} reads the value from the terminal without echo, or from standard input when there is no
 * terminal; no value is ever printed.
 */
@Command(
    name = "credentials",
    description = "Keep credential values in the profile's encrypted store.",
    mixinStandardHelpOptions = true,
    subcommands = {
      CredentialsCommand.Set.class,
      CredentialsCommand.ListNames.class,
      CredentialsCommand.Remove.class
    })
final class CredentialsCommand implements Runnable {
  @Override
  public void run() {
    throw new HarnessException("name a subcommand: set, list or remove");
  }

  static CredentialStore store(String profile) {
    return new CredentialStore(Main.home().profile(profile).dir());
  }

  @Command(name = "set", description = "Store a value (read without echo, or from standard input).")
  static final class Set implements Callable<Integer> {
    @Option(names = "--profile", required = true)
    String profile;

    @Parameters(paramLabel = "NAME")
    String name;

    @Override
    public Integer call() throws IOException {
      try {
        CredentialStore.checkName(name);
      } catch (CredentialStoreException e) {
        throw new HarnessException(e.getMessage());
      }
      char[] value = read(name);
      try {
        if (value.length == 0) {
          throw new HarnessException("no value given for " + name + "; nothing was stored");
        }
        store(profile).put(name, value);
      } catch (CredentialStoreException e) {
        throw new HarnessException(e.getMessage());
      } finally {
        Arrays.fill(value, '\0');
      }
      System.out.println("stored " + name + " in profile " + profile);
      return 0;
    }

    private static char[] read(String name) throws IOException {
      Console console = System.console();
      if (console != null) {
        char[] typed = console.readPassword("Value for %s (not shown): ", name);
        return typed == null ? new char[0] : typed;
      }
      byte[] bytes = readAll(System.in);
      int end = bytes.length;
      while (end > 0 && (bytes[end - 1] == '\n' || bytes[end - 1] == '\r')) {
        end--;
      }
      CharBuffer chars = StandardCharsets.UTF_8.decode(ByteBuffer.wrap(bytes, 0, end));
      Arrays.fill(bytes, (byte) 0);
      char[] value = Arrays.copyOf(chars.array(), chars.limit());
      Arrays.fill(chars.array(), '\0');
      return value;
    }

    private static byte[] readAll(InputStream in) throws IOException {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toByteArray();
    }
  }

  @Command(name = "list", description = "List the stored names (never values).")
  static final class ListNames implements Callable<Integer> {
    @Option(names = "--profile", required = true)
    String profile;

    @Override
    public Integer call() {
      try {
        store(profile).names().forEach(System.out::println);
      } catch (CredentialStoreException e) {
        throw new HarnessException(e.getMessage());
      }
      return 0;
    }
  }

  @Command(name = "remove", description = "Remove a stored value.")
  static final class Remove implements Callable<Integer> {
    @Option(names = "--profile", required = true)
    String profile;

    @Parameters(paramLabel = "NAME")
    String name;

    @Override
    public Integer call() {
      try {
        if (!store(profile).remove(name)) {
          throw new HarnessException("profile " + profile + " stores no credential " + name);
        }
      } catch (CredentialStoreException e) {
        throw new HarnessException(e.getMessage());
      }
      System.out.println("removed " + name + " from profile " + profile);
      return 0;
    }
  }
}
