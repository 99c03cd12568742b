// Reading, checking and appending the journal of a resumable write; see output_journal.h.
#include "io/output/output_journal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include "ember/error.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMagic = "ember-journal 1";

/// FNV-1a, 64 bits: each record carries it, so that a damaged record is found, not believed.
uint64_t checksum(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string sealed(const std::string& record) {
  char sum[24];
  std::snprintf(sum, sizeof sum, " #%016llx\n", static_cast<unsigned long long>(checksum(record)));
  return record + sum;
}

/// Tabs, newlines and backslashes in a key or a value (a path may hold them) as escapes.
std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

[[noreturn]] void corrupt(const std::string& path, size_t line, const std::string& why) {
  throw IoError("resumable-write journal '" + path + "' is damaged at line " +
                std::to_string(line) + ": " + why +
                "; its pieces cannot be trusted (rerun with RunOptions::discard_unfinished to "
                "start the write over)");
}

/// The records of the journal at `path`, each checked against its checksum.
std::vector<std::string> read_records(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot read resumable-write journal '" + path + "'");
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  std::vector<std::string> records;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = text.find('\n', at);
    if (end == std::string::npos) corrupt(path, records.size() + 1, "the last record is cut short");
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    const size_t mark = line.rfind(" #");
    if (mark == std::string::npos || line.size() - mark != 18)
      corrupt(path, records.size() + 1, "a record without its checksum");
    std::string record = line.substr(0, mark);
    if (sealed(record) != line + "\n") corrupt(path, records.size() + 1, "checksum mismatch");
    records.push_back(std::move(record));
  }
  return records;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t at = 0;
  while (true) {
    const size_t next = s.find(sep, at);
    parts.push_back(s.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) return parts;
    at = next + 1;
  }
}

int64_t number(const std::string& s, const std::string& path, size_t line) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0)
    corrupt(path, line, "'" + s + "' is not a count");
  return v;
}

/// `piece <partition> <input_end> <rows> <bytes> <last> <file or ->`
std::string piece_record(const JournalPiece& p) {
  return "piece " + std::to_string(p.partition) + " " + std::to_string(p.input_end) + " " +
         std::to_string(p.rows) + " " + std::to_string(p.bytes) + " " + (p.last ? "1" : "0") + " " +
         (p.file.empty() ? "-" : p.file);
}

JournalPiece parse_piece(const std::string& record, const std::string& path, size_t line) {
  const std::vector<std::string> f = split(record, ' ');
  if (f.size() != 7 || f[0] != "piece") corrupt(path, line, "not a piece record");
  JournalPiece p;
  p.partition = static_cast<int>(number(f[1], path, line));
  p.input_end = number(f[2], path, line);
  p.rows = number(f[3], path, line);
  p.bytes = number(f[4], path, line);
  p.last = f[5] == "1";
  if (f[6] != "-") p.file = f[6];
  if (p.file.find('/') != std::string::npos || p.file == "..")
    corrupt(path, line, "a piece file outside the staging directory");
  return p;
}

/// `breaker <bytes> <rows> <file> <batches of partition 0>,<of 1>,...` (`-`: no partitions)
std::string breaker_record(const JournalBreakerResult& r) {
  std::string batches;
  for (int64_t n : r.batches) batches += (batches.empty() ? "" : ",") + std::to_string(n);
  return "breaker " + std::to_string(r.bytes) + " " + std::to_string(r.rows) + " " + r.file + " " +
         (batches.empty() ? "-" : batches);
}

JournalBreakerResult parse_breaker(const std::string& record, const std::string& path,
                                   size_t line) {
  const std::vector<std::string> f = split(record, ' ');
  if (f.size() != 5 || f[0] != "breaker") corrupt(path, line, "not a breaker result record");
  JournalBreakerResult r;
  r.bytes = number(f[1], path, line);
  r.rows = number(f[2], path, line);
  r.file = f[3];
  if (r.file.empty() || r.file.find('/') != std::string::npos || r.file == "..")
    corrupt(path, line, "a breaker result file outside the staging directory");
  if (f[4] != "-")
    for (const std::string& n : split(f[4], ',')) r.batches.push_back(number(n, path, line));
  return r;
}

/// InvalidArgument naming what differs between the journal's identity and this run's.
void check_same_query(const std::string& target, const std::string& path,
                      const std::vector<std::pair<std::string, std::string>>& journal,
                      const JournalIdentity& now) {
  std::map<std::string, std::string> was(journal.begin(), journal.end());
  std::map<std::string, std::string> is(now.fields.begin(), now.fields.end());
  std::vector<std::string> differs;
  for (const auto& [what, value] : is) {
    auto it = was.find(what);
    if (it == was.end())
      differs.push_back(what + " (not part of the earlier query)");
    else if (it->second != value)
      differs.push_back(what + " (earlier: " + it->second + "; now: " + value + ")");
  }
  for (const auto& [what, value] : was)
    if (is.count(what) == 0) differs.push_back(what + " (part of the earlier query only)");
  if (differs.empty()) return;
  std::string msg = "output '" + target + "' holds the unfinished resumable write of another " +
                    "query (journal '" + path + "'); what differs: ";
  for (size_t i = 0; i < differs.size() && i < 5; ++i) msg += (i ? "; " : "") + differs[i];
  if (differs.size() > 5) msg += "; and " + std::to_string(differs.size() - 5) + " more";
  throw InvalidArgument(msg +
                        ". Rerun the same query to resume it, or set "
                        "RunOptions::discard_unfinished to start over");
}

/// Removes what is in `dir` but `keep`.
void remove_all_but(const std::string& dir, const std::set<std::string>& keep) {
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (keep.count(e.path().filename().string()) != 0) continue;
    std::error_code rm;
    fs::remove_all(e.path(), rm);
    if (rm) throw IoError("cannot remove '" + e.path().string() + "': " + rm.message());
  }
  if (ec) throw IoError("cannot list staging directory '" + dir + "': " + ec.message());
}

int lock_staging(const std::string& target, const std::string& staging_dir) {
  const int fd = ::open(staging_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    throw IoError("cannot open staging directory '" + staging_dir + "': " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd);
    if (error == EWOULDBLOCK)
      throw IoError("output '" + target +
                    "' is being written by another running resumable "
                    "job (it holds the lock on '" +
                    staging_dir +
                    "'); wait for it to end, or stop it and rerun to resume its work");
    throw IoError("cannot lock staging directory '" + staging_dir + "': " + std::strerror(error));
  }
  return fd;
}

}  // namespace

int64_t JournalPartition::rows() const {
  int64_t n = 0;
  for (const JournalPiece& p : pieces) n += p.rows;
  return n;
}

OutputJournal OutputJournal::open(const std::string& target, const std::string& staging_dir,
                                  bool staging_existed, const JournalIdentity& identity,
                                  bool discard, bool keep_pieces) {
  OutputJournal journal(staging_dir + ".journal", lock_staging(target, staging_dir));
  std::error_code ec;
  const bool committed = fs::exists(fs::path(staging_dir) / "_SUCCESS", ec);
  if (!staging_existed || committed || !fs::exists(journal.path_, ec)) {
    journal.start_new(staging_dir, identity);
    return journal;
  }
  try {
    if (journal.read_back(target, staging_dir, identity, keep_pieces)) return journal;
  } catch (const Error&) {
    if (!discard) throw;  // another query's journal, or a damaged one
  }
  journal.start_new(staging_dir, identity);
  return journal;
}

bool OutputJournal::read_back(const std::string& target, const std::string& staging_dir,
                              const JournalIdentity& identity, bool keep_pieces) {
  const std::vector<std::string> records = read_records(path_);
  std::vector<std::pair<std::string, std::string>> fields;
  size_t line = 1;
  if (records.empty() || records[0] != kMagic) corrupt(path_, 1, "not an ember journal");
  for (; line < records.size() && records[line] != "begin"; ++line) {
    const std::vector<std::string> f = split(records[line], '\t');
    if (f.size() != 3 || f[0] != "id") corrupt(path_, line + 1, "not an identity record");
    fields.emplace_back(f[1], f[2]);
  }
  if (line == records.size()) corrupt(path_, line, "the identity is cut short");
  JournalIdentity now;
  for (const auto& [what, value] : identity.fields)
    now.fields.emplace_back(escaped(what), escaped(value));
  check_same_query(target, path_, fields, now);
  if (!keep_pieces) return false;
  for (++line; line < records.size(); ++line) {
    if (records[line].rfind("breaker ", 0) == 0) {
      if (breaker_result_ || !recovered_.empty())
        corrupt(path_, line + 1, "a breaker result after a piece or another breaker result");
      breaker_result_ = parse_breaker(records[line], path_, line + 1);
      continue;
    }
    JournalPiece p = parse_piece(records[line], path_, line + 1);
    JournalPartition& part = recovered_[p.partition];
    if (part.finished) corrupt(path_, line + 1, "a piece after its partition's last");
    part.finished = p.last;
    part.pieces.push_back(std::move(p));
  }
  try {
    take_over(staging_dir);
  } catch (...) {
    recovered_.clear();
    breaker_result_.reset();
    throw;
  }
  return true;
}

void OutputJournal::start_new(const std::string& staging_dir, const JournalIdentity& identity) {
  recovered_.clear();
  breaker_result_.reset();
  remove_all_but(staging_dir, {});
  // Written whole beside the journal, then renamed over it: an identity is never cut short.
  std::string text = sealed(kMagic);
  for (const auto& [what, value] : identity.fields)
    text += sealed("id\t" + escaped(what) + "\t" + escaped(value));
  text += sealed("begin");
  const std::string temp = path_ + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  const bool ok = fd >= 0 &&
                  ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                  ::fsync(fd) == 0;
  const int error = errno;
  if (fd >= 0) ::close(fd);
  if (!ok || ::rename(temp.c_str(), path_.c_str()) != 0)
    throw IoError("cannot write resumable-write journal '" + path_ +
                  "': " + std::strerror(ok ? errno : error));
  take_over(staging_dir);
}

void OutputJournal::take_over(const std::string& staging_dir) {
  std::set<std::string> files;
  auto check = [&](const std::string& name, int64_t bytes) {
    const fs::path file = fs::path(staging_dir) / name;
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    if (ec || static_cast<int64_t>(size) != bytes)
      throw IoError("resumable-write journal '" + path_ + "' names piece '" + file.string() +
                    "' of " + std::to_string(bytes) + " bytes, but " +
                    (ec ? "it is missing" : "it has " + std::to_string(size)) +
                    "; rerun with RunOptions::discard_unfinished to start the write over");
    files.insert(name);
  };
  if (breaker_result_) check(breaker_result_->file, breaker_result_->bytes);
  for (const auto& [partition, part] : recovered_)
    for (const JournalPiece& p : part.pieces)
      if (!p.file.empty()) check(p.file, p.bytes);
  remove_all_but(staging_dir, files);  // what a killed run wrote but did not journal
  if (fd_ >= 0) ::close(fd_);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd_ < 0)
    throw IoError("cannot open resumable-write journal '" + path_ + "': " + std::strerror(errno));
}

OutputJournal::OutputJournal(OutputJournal&& other) noexcept
    : path_(std::move(other.path_)),
      lock_fd_(std::exchange(other.lock_fd_, -1)),
      fd_(std::exchange(other.fd_, -1)),
      recovered_(std::move(other.recovered_)),
      breaker_result_(std::move(other.breaker_result_)) {}

OutputJournal::~OutputJournal() {
  if (fd_ >= 0) ::close(fd_);
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

void OutputJournal::append(const JournalPiece& piece) { append_record(piece_record(piece)); }

void OutputJournal::append(const JournalBreakerResult& result) {
  append_record(breaker_record(result));
}

void OutputJournal::append_record(const std::string& record) {
  const std::string line = sealed(record);
  std::lock_guard<std::mutex> lock(mu_);
  // One write of a short record with O_APPEND: a killed process leaves all of it or none.
  const ssize_t n = ::write(fd_, line.data(), line.size());
  if (n != static_cast<ssize_t>(line.size()) || ::fdatasync(fd_) != 0)
    throw IoError("cannot append to resumable-write journal '" + path_ + "': " +
                  std::strerror(n < 0 || n == static_cast<ssize_t>(line.size()) ? errno : ENOSPC));
}

void OutputJournal::remove() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  (void)::unlink(path_.c_str());
}

}  // namespace ember
