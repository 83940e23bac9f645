package dev.periscope.attachments;

import dev.periscope.api.host.Attachment;
import dev.periscope.api.host.AttachmentMetadata;
import dev.periscope.api.host.AttachmentRef;
import dev.periscope.api.host.AttachmentRejectedException;
import dev.periscope.api.host.AttachmentService;
import dev.periscope.api.host.Migration;
import dev.periscope.api.host.StorageDomain;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.imageio.ImageIO;

/**
 * Images, and downloaded files kept as bytes, as content-addressed files (named by their sha256,
 * mode 0600) in one owner-only directory, with an index of refs in a storage domain. Refs are
 * opaque ({@code attachment-<uuid>}); the same image saved twice is one file with two refs.
 */
public final class FileAttachmentService implements AttachmentService {
  /** The default byte budget of one image: 16 MiB. */
  public static final long DEFAULT_MAX_BYTES = 16L * 1024 * 1024;

  /** The index schema, for the host to open the storage domain with. */
  public static final List<Migration> MIGRATIONS =
      List.of(
          new Migration(
              1,
              "CREATE TABLE attachments (ref TEXT PRIMARY KEY, sha256 TEXT NOT NULL, mime_type TEXT NOT NULL,"
                  + " bytes INTEGER NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL,"
                  + " created TEXT NOT NULL, agent_session TEXT, name TEXT)"));

  private static final Map<String, String> EXTENSIONS =
      Map.of("image/png", "png", "image/jpeg", "jpg", "image/gif", "gif", "image/webp", "webp");

  private final Path directory;
  private final StorageDomain index;
  private final long maxBytes;

  public FileAttachmentService(Path directory, StorageDomain index, long maxBytes) {
    this.directory = directory;
    this.index = index;
    this.maxBytes = maxBytes;
    try {
      Files.createDirectories(
          directory,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the attachments directory " + directory, e);
    }
  }

  @Override
  public AttachmentRef saveImage(byte[] bytes, String mimeType, AttachmentMetadata metadata) {
    String extension = EXTENSIONS.get(mimeType);
    if (extension == null) {
      throw new AttachmentRejectedException(
          "attachment refused: "
              + mimeType
              + " is not an image type this store keeps "
              + EXTENSIONS.keySet());
    }
    if (bytes.length > maxBytes) {
      throw new AttachmentRejectedException(
          "attachment refused: the image is "
              + bytes.length
              + " bytes, over this store's budget of "
              + maxBytes
              + " bytes");
    }
    BufferedImage image;
    try {
      image = ImageIO.read(new ByteArrayInputStream(bytes));
    } catch (IOException e) {
      image = null;
    }
    if (image == null) {
      throw new AttachmentRejectedException(
          "attachment refused: the bytes are not a decodable " + mimeType + " image");
    }
    return store(bytes, mimeType, image.getWidth(), image.getHeight(), metadata);
  }

  /**
   * Keeps a file of any type as bytes under its digest, with the extension {@code bin} unless it is
   * an image this store keeps: a download is never opened, and never named for a program to run it.
   */
  @Override
  public AttachmentRef saveFile(byte[] bytes, String mimeType, AttachmentMetadata metadata) {
    if (bytes.length > maxBytes) {
      throw new AttachmentRejectedException(
          "attachment refused: the file is "
              + bytes.length
              + " bytes, over this store's budget of "
              + maxBytes
              + " bytes");
    }
    return store(bytes, mimeType, 0, 0, metadata);
  }

  private static String extension(String mimeType) {
    return EXTENSIONS.getOrDefault(mimeType, "bin");
  }

  private AttachmentRef store(
      byte[] bytes, String mimeType, int width, int height, AttachmentMetadata metadata) {
    String sha = sha256(bytes);
    Path file = directory.resolve(sha + "." + extension(mimeType));
    try {
      if (!Files.exists(file)) {
        writeAtomically(file, bytes);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write attachment " + sha, e);
    }
    String ref = "attachment-" + UUID.randomUUID();
    AttachmentRef saved = new AttachmentRef(ref, mimeType, bytes.length, width, height);
    try {
      index.transaction(
          c -> {
            try (PreparedStatement s =
                c.prepareStatement("INSERT INTO attachments VALUES (?,?,?,?,?,?,?,?,?)")) {
              s.setString(1, ref);
              s.setString(2, sha);
              s.setString(3, mimeType);
              s.setLong(4, bytes.length);
              s.setInt(5, saved.width());
              s.setInt(6, saved.height());
              s.setString(7, Instant.now().toString());
              s.setString(8, metadata == null ? null : metadata.agentSessionId());
              s.setString(9, metadata == null ? null : metadata.name());
              s.executeUpdate();
            }
            return null;
          });
    } catch (SQLException e) {
      throw new IllegalStateException("cannot index attachment " + ref + ": " + e.getMessage(), e);
    }
    return saved;
  }

  @Override
  public Optional<Attachment> open(String ref) {
    try {
      return index.transaction(
          c -> {
            try (PreparedStatement s =
                c.prepareStatement("SELECT * FROM attachments WHERE ref = ?")) {
              s.setString(1, ref);
              try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                  return Optional.empty();
                }
                String mime = r.getString("mime_type");
                Path file = directory.resolve(r.getString("sha256") + "." + extension(mime));
                byte[] content = Files.readAllBytes(file);
                return Optional.of(
                    new Attachment(
                        ref,
                        mime,
                        r.getLong("bytes"),
                        r.getInt("width"),
                        r.getInt("height"),
                        Instant.parse(r.getString("created")),
                        r.getString("agent_session"),
                        content));
              } catch (IOException e) {
                throw new UncheckedIOException(
                    "attachment " + ref + " is indexed but its file cannot be read", e);
              }
            }
          });
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the attachment index: " + e.getMessage(), e);
    }
  }

  /**
   * Deletes the ref from the index, then its file unless another ref holds the same bytes (the
   * store is content-addressed).
   */
  @Override
  public boolean delete(String ref) {
    try {
      Optional<Path> orphan =
          index.transaction(
              c -> {
                String sha;
                String mime;
                try (PreparedStatement s =
                    c.prepareStatement("SELECT sha256, mime_type FROM attachments WHERE ref = ?")) {
                  s.setString(1, ref);
                  try (ResultSet r = s.executeQuery()) {
                    if (!r.next()) {
                      return null;
                    }
                    sha = r.getString(1);
                    mime = r.getString(2);
                  }
                }
                try (PreparedStatement d =
                    c.prepareStatement("DELETE FROM attachments WHERE ref = ?")) {
                  d.setString(1, ref);
                  d.executeUpdate();
                }
                try (PreparedStatement s =
                    c.prepareStatement("SELECT COUNT(*) FROM attachments WHERE sha256 = ?")) {
                  s.setString(1, sha);
                  try (ResultSet r = s.executeQuery()) {
                    r.next();
                    return r.getInt(1) == 0
                        ? Optional.of(directory.resolve(sha + "." + extension(mime)))
                        : Optional.<Path>empty();
                  }
                }
              });
      if (orphan == null) {
        return false;
      }
      if (orphan.isPresent()) {
        Files.deleteIfExists(orphan.get());
      }
      return true;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot delete attachment " + ref + ": " + e.getMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the file of attachment " + ref, e);
    }
  }

  /** Where the host keeps an attachment: for the host's own output, never for a tool result. */
  public Optional<Path> locate(String ref) {
    return open(ref)
        .map(a -> directory.resolve(sha256(a.content()) + "." + extension(a.mimeType())));
  }

  private void writeAtomically(Path file, byte[] bytes) throws IOException {
    Path temp =
        Files.createTempFile(
            directory,
            ".incoming-",
            ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try {
      Files.write(temp, bytes);
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
