/// \file
/// The kinds of DataFrame::join.
#pragma once

namespace ember {

/// Which rows a join keeps. Null keys never match.
enum class JoinType {
  Inner,  ///< pairs of rows whose keys are equal
  Left,   ///< every left row; right columns null where nothing matched
  Right,  ///< every right row; left columns null where nothing matched
  Full,   ///< every row of both sides
  Semi,   ///< left rows that have a match (once each, left columns only)
  Anti,   ///< left rows that have no match (left columns only)
};

}  // namespace ember
