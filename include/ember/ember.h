/// \file
/// ember: a dataframe engine for batch inference and heavy per-row work.
#pragma once

#include "ember/batch.h"
#include "ember/cluster.h"
#include "ember/column.h"
#include "ember/dataframe.h"
#include "ember/error.h"
#include "ember/expr.h"
#include "ember/session.h"
#include "ember/types.h"
#include "ember/udf.h"
#include "ember/version.h"

/// \namespace ember
/// The whole public API: dataframes, expressions, UDFs, sessions, columns, batches and errors.
