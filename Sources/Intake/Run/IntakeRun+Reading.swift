import ChinaDatum
import Tracks
import Unlocks

extension IntakeRun {
    /// The format a record names before its content is seen (the name's, else `unknown`).
    static func plannedFormat(_ name: String) -> String {
        FormatTable.readsByContent(name) ? "unknown" : FormatTable.format(named: name)?.name ?? "unknown"
    }

    /// A track file of the walk: fingerprinted, admitted by the copies rule, read.
    mutating func takeTrack(_ file: WalkedFile, label: ActivityLabel?, gzip: Bool = false) {
        let fingerprint: String
        do {
            let print = try Fingerprint.of(file)
            guard print.size > 0 else { return skip(file.path, .empty, label: label) }
            fingerprint = print.key
        } catch {
            let path = file.path
            return record(InputRecord(path: path, fingerprint: InputRecord.pathKey(path: path), format: Self.plannedFormat(file.name)),
                          failure: Self.inputError(error, path: path))
        }
        switch admit(file.path, fingerprint) {
        case .passedOver: return
        case let .read(replacing):
            do {
                try read(try Self.open(file), name: file.name, path: file.path, fingerprint: fingerprint, label: label,
                         explicit: file.explicit, gzip: gzip, replacing: replacing)
            } catch {
                record(InputRecord(path: file.path, fingerprint: fingerprint, format: Self.plannedFormat(file.name)),
                       failure: Self.inputError(error, path: file.path), replacing: replacing)
            }
        }
    }

    /// Opens `source` (decompressed when `name` ends in `.gz`, or `gzip`), decides the format
    /// (``FormatTable/decide(name:prefix:explicit:)``, the one place) or why the stream is
    /// skipped (empty, the tool's own output, no track), and reads it.
    mutating func read(_ source: any ByteSource, name: String, path: String, fingerprint: String, label: ActivityLabel?,
                       explicit: Bool, gzip: Bool = false, replacing: String? = nil) throws {
        var source = source
        let decompressed = gzip || name.lowercased().hasSuffix(".gz")
        if decompressed { source = try GzipStream(wrapping: source, path: path) }
        var replay = try ReplayingSource(AnySource(source))
        if ContainerKind.isGzip(replay.prefix), !FormatTable.isFogOfWorldTile(name) {
            // One layer of gzip is read (StreamLayers), whatever the name says.
            if decompressed { throw StreamLayers.compressedTwice(path) }
            replay = try ReplayingSource(AnySource(try GzipStream(wrapping: replay, path: path)))
            if ContainerKind.isGzip(replay.prefix) { throw StreamLayers.compressedTwice(path) }
        }
        if replay.prefix.isEmpty { return skip(path, .empty, label: label) }
        if OwnOutput.recognises(replay.prefix) { return skip(path, .ownOutput) }
        guard let format = FormatTable.decide(name: name, prefix: ContentPrefix(replay.prefix), explicit: explicit) else {
            return skip(path, FormatTable.isText(name) ? .textWithoutCoordinates : .notATrackFormat)
        }
        if let problem = StreamLayers.problem(replay.prefix, format: format.name, path: path) { throw problem }
        read(replay, format: format, path: path, fingerprint: fingerprint, explicit: explicit, label: label, replacing: replacing)
    }

    /// Reads one stream with `format`'s reader; an error keeps the points before it, except a
    /// checksum that fails (the damage may be anywhere: nothing of the input is counted).
    ///
    /// A JSON file found in a folder or archive (not named by the caller) whose structure is none
    /// of the track formats is skipped, not rejected: exports such as Google Takeout hold many
    /// JSON files that are not tracks.
    mutating func read(_ source: ReplayingSource<AnySource>, format: TrackFormat, path: String, fingerprint: String,
                       explicit: Bool, label: ActivityLabel?, replacing: String?) {
        var begun = InputRecord(path: path, fingerprint: fingerprint, format: format.name)
        begun.activityType = label?.type
        begun.activityName = label?.name
        begun.datum = options.datums.datum(for: path)
        sink.classifier.begin(begun)
        sink.inputPath = path
        sink.inputDatum = begun.datum ?? .wgs84
        sink.hinted = false
        sink.virtualActivity = nil
        sink.problemsShown = 0
        sink.pointsInInput = 0
        sink.unreadableInInput = 0
        var formatName = format.name
        var failed = false
        var input = FormatInput(source: source, path: path, timeZone: options.classify.timeZone)
        do {
            if let refined = try format.read(&input, &sink) { formatName = refined }
        } catch let problem as InputError where problem.kind == .unknownStructure && !explicit && sink.pointsInInput == 0 {
            sink.classifier.discard()
            skip(path, .notATrackJSON)
            return
        } catch let problem as InputError where problem.kind == .noLocation && sink.pointsInInput == 0 {
            // A photo without a position is no track, named or found: listed, never a failure.
            sink.classifier.discard()
            skip(path, .photoWithoutLocation)
            return
        } catch let problem as InputError where problem.kind == .checksumMismatch {
            // Nothing of a stream whose checksum fails is counted: its record alone says why.
            sink.classifier.discard()
            var rejected = begun
            rejected.format = formatName
            record(rejected, failure: problem, replacing: replacing)
            return
        } catch {
            // The report names the input already; its error says where and what.
            if let problem = error as? InputError {
                sink.classifier.fail((problem.line.map { "line \($0): " } ?? "") + problem.reason)
            } else {
                sink.classifier.fail("\(error)")
            }
            failedInputs += 1
            failed = true
            sink.messages.say(.inputFailed(Self.inputError(error, path: path)))
        }
        if let virtual = sink.virtualActivity, !options.includeVirtual, !failed {
            // The file itself says it is virtual (Zwift and other trainer apps draw a made-up
            // route on real coordinates), as a Strava export's label would: skipped the same way.
            sink.classifier.discard()
            skip(path, .virtualActivity, label: ActivityLabel(type: virtual, name: label?.name))
            return
        }
        if sink.problemsShown > IntakeSink.problemsPerInput {
            sink.messages.say(.moreUnreadablePoints(path: path, count: sink.problemsShown - IntakeSink.problemsPerInput))
        }
        if sink.unreadableInInput > 0, sink.unreadableInInput == sink.pointsInInput, !failed {
            // Read to the end, but nothing in it could be used: not a file that was read.
            let reason = "no readable point: \(sink.unreadableInInput) unreadable"
            sink.classifier.fail(reason)
            failedInputs += 1
            sink.messages.say(.noReadablePoint(path: path, unreadable: sink.unreadableInInput))
        }
        sink.classifier.setFormat(formatName)
        finishInput(fingerprint, path: path, replacing: replacing)
    }

    /// Ends the current input; when it is a copy read in place of another (`replacing`, a later
    /// path in byte order), that one's reading gives way and it is listed as this one's duplicate.
    mutating func finishInput(_ fingerprint: String, path: String, replacing: String?) {
        if replacing != nil { sink.classifier.forgetInput(fingerprint) }
        sink.classifier.finish(fingerprint, path: path)
        if let replacing { skip(replacing, .duplicate, duplicateOf: path) }
    }

    /// What the copies rule says of an input whose bytes have this fingerprint.
    enum Admission {
        /// Read it; `replacing`: the path of a copy read before (this run or the state), which
        /// this reading replaces.
        case read(replacing: String?)
        /// In the ledger already at this path, or a copy whose path comes first: accounted, not read.
        case passedOver
    }

    /// The copies rule (docs/report-format.md, "Copies"): of byte-identical inputs, the one whose
    /// path comes first in byte order is read and the others are its duplicates, whatever the
    /// order they are met in (arguments, runs through a state, shards). An input met again at the
    /// path the ledger has it by is "already in the state", unless the state recorded it before
    /// subdivisions were located: then it is read again in its place. Content the state has
    /// forgotten for good is skipped as forgotten, whatever its path.
    mutating func admit(_ path: String, _ fingerprint: String) -> Admission {
        if sink.classifier.forgotten.contains(fingerprint) {
            skip(path, .forgotten)
            return .passedOver
        }
        guard let known = sink.classifier.knownPath(fingerprint) else { return .read(replacing: nil) }
        if known == path {
            // Recorded by an earlier release, before subdivisions: read again in its place.
            if sink.classifier.recordedBeforeSubdivisions.contains(fingerprint) {
                sink.classifier.forgetInput(fingerprint)
                return .read(replacing: nil)
            }
            alreadyCounted += 1
            return .passedOver
        }
        if path.precedesInBytes(known) { return .read(replacing: known) }
        skip(path, .duplicate, duplicateOf: known)
        return .passedOver
    }
}

/// The copies rule applied to a whole ledger (a run's end, a merge of shards).
public enum Copies {
    /// Points every `duplicate` at the copy that is read: a duplicate of a path that has itself
    /// become a duplicate (a copy with an earlier path came later) follows it.
    public static func repoint(_ ledger: inout UnlockLedger) {
        var readPaths: [String: String] = [:]  // a duplicate's path → the path it repeats
        for record in ledger.inputs.values where record.status == .skipped && record.skipReason == .duplicate {
            if let of = record.duplicateOf { readPaths[record.path] = of }
        }
        guard !readPaths.isEmpty else { return }
        for (key, record) in ledger.inputs where record.duplicateOf != nil {
            var target = record.duplicateOf!
            var steps = 0
            while let next = readPaths[target], steps < readPaths.count { target = next; steps += 1 }
            if target != record.duplicateOf { ledger.inputs[key]!.duplicateOf = target }
        }
    }

    /// Joins the ledger of another shard: an input both read at different paths is kept at the
    /// path first in byte order, the other listed as its duplicate (as one run over both would).
    /// One read at the same path in both keeps the first ledger's reading (callers check that
    /// the two agree).
    public static func merge(_ other: UnlockLedger, into ledger: inout UnlockLedger) {
        var other = other
        for (fingerprint, theirs) in other.inputs where theirs.status != .skipped {
            guard let ours = ledger.inputs[fingerprint], ours.status != .skipped else { continue }
            if ours.path == theirs.path { continue }
            let (kept, loser) = theirs.path.precedesInBytes(ours.path) ? (theirs, ours) : (ours, theirs)
            if kept.path == theirs.path {
                ledger.inputs[fingerprint] = theirs
                ledger.contributions[fingerprint] = other.contributions[fingerprint]
            }
            other.inputs.removeValue(forKey: fingerprint)
            other.contributions.removeValue(forKey: fingerprint)
            let duplicate = InputRecord.skipped(path: loser.path, format: FormatTable.recordFormat(of: loser.path),
                                                reason: .duplicate, duplicateOf: kept.path)
            ledger.inputs[duplicate.fingerprint] = duplicate
        }
        ledger.merge(other)
        repoint(&ledger)
    }
}
