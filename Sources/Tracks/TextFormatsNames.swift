import TextFormats

// The byte sources and the input error live in `TextFormats`, beside the tokenizers that read
// them; these names keep `Tracks.ByteSource` and friends working for code that imports `Tracks`
// alone (apps, the CLI, the archive readers).

/// Something bytes can be read from in chunks (``TextFormats/ByteSource``).
public typealias ByteSource = TextFormats.ByteSource
/// An error reading an input, naming it (``TextFormats/InputError``).
public typealias InputError = TextFormats.InputError
/// A file or standard input as a byte source (``TextFormats/FileSource``).
public typealias FileSource = TextFormats.FileSource
/// Bytes in memory as a byte source (``TextFormats/MemorySource``).
public typealias MemorySource = TextFormats.MemorySource
/// The streaming JSON reader (``TextFormats/JSONStreamReader``) and its events, limits and errors.
public typealias JSONStreamReader = TextFormats.JSONStreamReader
public typealias JSONEvent = TextFormats.JSONEvent
public typealias JSONStreamLimits = TextFormats.JSONStreamLimits
public typealias JSONStreamError = TextFormats.JSONStreamError
/// Checked reading of a file's lengths, sizes, offsets and counts (``TextFormats/FileIntegers``).
public typealias FileIntegers = TextFormats.FileIntegers
