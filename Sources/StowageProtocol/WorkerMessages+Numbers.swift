/// The numbers a worker reports, checked against ``OutsideNumbers`` where the scheduler reads them: the scheduler
/// sums reported bytes into status, metrics and the disk ledger, so a report no file can make (`bytes`
/// 9223372036854775807) is a malformed message, dropped and counted like any other.
extension TaskProgress {
    /// The first number out of range, or nil.
    public var numberProblem: NumberRangeError? {
        do throws(NumberRangeError) {
            _ = try OutsideNumbers.bytes("PROGRESS bytes").check(bytes)
            return nil
        } catch {
            return error
        }
    }
}

extension TaskResult {
    /// The first number out of range in what was fetched, or nil (a plan is checked as it is decoded).
    public var numberProblem: NumberRangeError? {
        var reports: [FetchReport] = []
        switch outcome {
        case .fetched(let report): reports = [report]
        case .fetchedBatch(let batch):
            reports = batch.results.compactMap { if case .fetched(let report) = $0 { report } else { nil } }
        default: break
        }
        do throws(NumberRangeError) {
            for report in reports {
                _ = try OutsideNumbers.bytes("RESULT bytes").check(report.bytes)
                _ = try OutsideNumbers.bytes("RESULT contentLength").checkIfPresent(report.contentLength)
            }
            return nil
        } catch {
            return error
        }
    }
}
