// Every kind of logical plan node and its factory: what the DataFrame API builds plans from.
#pragma once

#include "plan/logical_node.h"
#include "plan/nodes/actor_pool_project_node.h"
#include "plan/nodes/aggregate_node.h"
#include "plan/nodes/distinct.h"
#include "plan/nodes/explode_node.h"
#include "plan/nodes/filter_node.h"
#include "plan/nodes/group_by_node.h"
#include "plan/nodes/join_node.h"
#include "plan/nodes/limit_node.h"
#include "plan/nodes/project_node.h"
#include "plan/nodes/repartition_node.h"
#include "plan/nodes/sort_node.h"
#include "plan/nodes/source_node.h"
#include "plan/nodes/top_k_node.h"
#include "plan/nodes/url_download_node.h"
