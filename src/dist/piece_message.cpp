// Encoding a journal piece for the messages between ranks; see piece_message.h.
#include "dist/piece_message.h"

#include "ember/error.h"

namespace ember::dist {

void put_piece(process::MessageWriter& out, const JournalPiece& piece) {
  out.put(static_cast<int32_t>(piece.partition));
  out.put(piece.input_end);
  out.put(piece.rows);
  out.put(piece.bytes);
  out.put(static_cast<uint8_t>(piece.last));
  out.put_string(piece.file);
}

JournalPiece get_piece(process::MessageReader& in) {
  JournalPiece piece;
  piece.partition = in.get<int32_t>();
  piece.input_end = in.get<int64_t>();
  piece.rows = in.get<int64_t>();
  piece.bytes = in.get<int64_t>();
  piece.last = in.get<uint8_t>() != 0;
  piece.file = std::string(in.get_string());
  if (piece.file.find('/') != std::string::npos)
    throw Error("internal: a piece of output outside the staging directory: " + piece.file);
  return piece;
}

void put_unfinished(process::MessageWriter& out,
                    const std::map<int, JournalPartition>& partitions) {
  uint32_t pieces = 0;
  for (const auto& [partition, part] : partitions)
    pieces += static_cast<uint32_t>(part.pieces.size());
  out.put(pieces);
  for (const auto& [partition, part] : partitions)
    for (const JournalPiece& piece : part.pieces) put_piece(out, piece);
}

std::map<int, JournalPartition> get_unfinished(process::MessageReader& in) {
  std::map<int, JournalPartition> partitions;
  const auto pieces = in.get<uint32_t>();
  for (uint32_t i = 0; i < pieces; ++i) {
    JournalPiece piece = get_piece(in);
    partitions[piece.partition].pieces.push_back(std::move(piece));
  }
  return partitions;
}

}  // namespace ember::dist
